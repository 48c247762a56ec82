"""Sphinx configuration (builds offline: no intersphinx, no remote resources)."""

import rlscore

project = "rlscore"
author = "the rlscore developers"
release = rlscore.__version__
version = release
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_default_options = {}
exclude_patterns = ["_build"]
html_theme = "alabaster"
# no CDN: a local MathJax copy is used if one is placed there, else TeX source shows
mathjax_path = "mathjax/tex-chtml.js"
