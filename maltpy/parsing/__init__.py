"""The parsing loop (Cython), sentence encoding, model files and the Parser class."""
