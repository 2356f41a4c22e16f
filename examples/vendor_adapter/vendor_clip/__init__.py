"""vendor_clip: a stand-in for a vendor's own tensor library, with one deliberate bug.

`clip` is what the vendor ships; `adapter.VendorClipAdapter` is the only file
a vendor writes to put it under the suite.
"""
from .kernel import Element, clip

__version__ = "1.0.0"
__all__ = ["Element", "clip", "__version__"]
