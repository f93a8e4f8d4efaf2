"""A contract type of our own for import-linter (``make lint``): modules that may import only
the standard library and the packages named (the pure rules: ``games.<kind>.rules`` and the common
rules module ``rulebase``). import-linter's own contracts forbid what is named; this one
allows only what is named, so a new dependency of the rules fails the lint whatever it is."""

from __future__ import annotations

import sys

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck
from importlinter.domain.helpers import module_expressions_to_modules


class StandardLibraryOnlyContract(Contract):
    """``source_modules`` (and their descendants) import only the standard library, each other
    and ``allowed_modules`` (and their descendants); deferred imports count too."""

    type_name = "standard_library_only"

    source_modules = fields.SetField(subfield=fields.ModuleExpressionField())
    allowed_modules = fields.SetField(subfield=fields.ModuleExpressionField(), required=False)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        sources = {
            m.name
            for m in module_expressions_to_modules(graph, self.source_modules)  # type: ignore[arg-type]
        }
        allowed = {
            m.name
            for m in module_expressions_to_modules(graph, self.allowed_modules or set())  # type: ignore[arg-type]
        }
        packages = set(sources)
        for source in sources:
            packages |= graph.find_descendants(source)

        def fine(imported: str) -> bool:
            top = imported.split(".")[0]
            return top in sys.stdlib_module_names or any(
                imported == p or imported.startswith(p + ".") for p in packages | allowed
            )

        found = sorted(
            (importer, imported, tuple(d["line_number"] for d in details))
            for importer in sorted(packages)
            for imported in graph.find_modules_directly_imported_by(importer)
            if not fine(imported)
            for details in [graph.get_import_details(importer=importer, imported=imported)]
        )
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported, lines in check.metadata["found"]:
            where = ", ".join(f"l.{n}" for n in lines) or "?"
            output.print_error(f"{importer} imports {imported} ({where}):", bold=False)
            output.print_error("  only the standard library and the allowed modules", bold=False)
            output.new_line()
