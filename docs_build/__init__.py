"""The site's build, a package installed with the project (``pip install -e .``): ``plugin`` is
its MkDocs plugin (``encoder-site``), whose docstring follows a page through the modules that do
each step; README's Layout names every module."""
