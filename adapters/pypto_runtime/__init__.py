"""What the pypto adapter needs to get real values out of pypto 0.2.0 on a CPU.

patches     every change to pypto's internals, refused on an unverified version
calculator  the interpreter's C++ calculator, built once into the user cache
workspace   the private temporary folder for every file pypto writes
kernels     a `pypto.frontend.jit` kernel per case, as a user writes it
isolate     each call in a forked child, with a hang limit
capture     what pypto prints, captured into the outcome
readback    the outputs, read from the interpreter's dumps
"""
