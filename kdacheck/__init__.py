"""kdacheck: pre-deploy checks for SGLang hybrid linear-attention models with speculative decoding.

The pipeline, one module each: read (``readers``) → parse flags against SGLang's table (``flags``,
``args``) → resolve with provenance (``resolve``) → check (``rules``) → report (``report``).
"""

__version__ = "0.1.0"
