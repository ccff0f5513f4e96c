"""The package's readers of files, its lowest layer (the standard library only; numpy nowhere
here): a result JSON (read_json: the one reader, its "schema" checked) and a safetensors file's
header (read_header, read_whole; write_file, its writer). A file that cannot be read as what it
should be is a ReadError, a ValueError whose text is one line, "PATH: problem"; the tools above
(geoattn.summary, .compare, .tables, .figures, .results and geoattn.load) report it as their own
errors.

    from geoattn.io import ReadError, read_json
    doc = read_json("out/m.json", "geoattn.measure")   # any geoattn.measure/N, or a ReadError
"""
from .errors import ReadError
from .json_doc import read_json, read_json_value
from .safetensors import read_header, read_whole, tensors, write_file

__all__ = ["ReadError", "read_json", "read_json_value", "read_header", "read_whole", "tensors", "write_file"]
