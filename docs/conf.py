"""Sphinx configuration (builds offline: no intersphinx, no remote resources)."""

import rlscore

project = "rlscore"
author = "the rlscore developers"
release = rlscore.__version__
version = release
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax",
              "matplotlib.sphinxext.plot_directive"]
# the tutorial figures are computed when the documentation is built
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 90)]
plot_pre_code = "import matplotlib\nmatplotlib.use('Agg')\n"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_default_options = {}
# napoleon turns the words of numpydoc type fields ("array (m, n_pairs)") into
# cross-references; a word naming attributes of several classes is ambiguous, not broken
suppress_warnings = ["ref.python"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
# no CDN: a local MathJax copy is used if one is placed there, else TeX source shows
mathjax_path = "mathjax/tex-chtml.js"
