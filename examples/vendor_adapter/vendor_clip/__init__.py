"""vendor_clip: a stand-in for a vendor's own tensor library, with one deliberate bug in clip.

`clip` and `scatter` are what the vendor ships; `adapter.VendorClipAdapter` is
the only file a vendor writes to put them under the suite.
"""
from .kernel import Element, clip, scatter

__version__ = "1.0.0"
__all__ = ["Element", "clip", "scatter", "__version__"]
