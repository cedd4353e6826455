"""The library call of each command: read the log, shape it, analyze it and write what the command writes.

One module per command (``report``, ``plan``, ``compare``, ``framing``, ``judge``, ``describe``, ...). A
command on the command line parses its flags, calls one function here and prints what it returns; the
local page (:mod:`probestats.serve`) calls the same functions. This layer sits above
:mod:`probestats.present`, whose modules only turn results into text.
"""
