"""The site's build, a package installed with the project (``pip install -e .``).

``plugin`` is the MkDocs plugin (``encoder-site``) and shows a page's way through the build in
order; it calls the modules that do each step: ``fences`` (the pages' code run once, outputs
cached), ``figures`` (drawn from ``plots/`` and ``diagrams/``, laid out on the page),
``mathjax`` (formulas typeset at build), ``html`` (the page's HTML tidied through a parser),
``notebooks`` (each page as a notebook to download), ``i18n`` (the Chinese edition),
``explorers`` (trained weights exported for the pages' explorers). ``cache`` keys every cache;
``griffe_shapes`` formats the API page.
"""
