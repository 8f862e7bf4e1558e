"""Seers Catalog: a climbing card game for 2-5 seers (see ``docs/seers_catalog.md``)."""
