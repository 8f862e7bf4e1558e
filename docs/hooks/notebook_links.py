"""A MkDocs hook: the links in the notebooks lead to pages of the site.

A notebook links its neighbours (``03_training.ipynb``) and the docs (``../docs/agents.md``) as
files of the repository, which Jupyter and GitHub follow. mkdocs-jupyter renders them as they
are, so on the site they would lead nowhere. This hook points each at its page, and warns (a
failure under ``--strict``) when the file is not on the site.
"""

from __future__ import annotations

import logging
import posixpath
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.notebook_links")
# A relative link to a page or a notebook, with its anchor apart.
LINK = re.compile(r'href="(?![a-z]+:|/)([^"#]+\.(?:md|ipynb))(#[^"]*)?"')


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Rewrite a notebook page's links to files as links to their pages."""
    if not page.file.src_uri.endswith(".ipynb"):
        return html

    def site_link(match: re.Match[str]) -> str:
        # docs/notebooks is the repository's notebooks/, so a notebook's path in the docs is its
        # path in the repository, and a repository path under docs/ is that page's.
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), match[1]))
        target = files.get_file_from_path(path.removeprefix("docs/"))
        if target is None:
            log.warning(f"notebook {page.file.src_uri} links {match[1]}, which is not on the site")
            return match[0]
        return f'href="{target.url_relative_to(page.file)}{match[2] or ""}"'

    return LINK.sub(site_link, html)
