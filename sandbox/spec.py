"""Every request checked against Discord's own OpenAPI spec, the way Discord answers.

``sandbox/spec/openapi.json`` is Discord's published OpenAPI 3.1 description of API v10
(github.com/discord/discord-api-spec, MIT licence, vendored at the commit named in
``sandbox/spec/NOTICE``). For each request the sandbox finds the spec's operation — an unknown
route is a 404 as on Discord —, checks the path parameters (snowflakes), the query parameters
it knows and the JSON body (or a multipart request's ``payload_json``) with the ``jsonschema``
library, and answers a violation with 400 / 50035 "Invalid Form Body" and Discord's nested
``errors`` object. Validators are compiled once per operation and cached.

The spec is stricter than Discord in a few places where discord.py relies on Discord's
leniency; ``ALLOW_LIST`` names each one, narrowly, with why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import referencing
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing.jsonschema import DRAFT202012

from .util import ApiError

SPEC_PATH = Path(__file__).with_name("spec") / "openapi.json"
SPEC_URI = "urn:discord-api-spec"

#: Where the spec and Discord disagree with discord.py's (accepted) requests. Each entry:
#: (name, what discord.py sends, why it is fine on Discord). Applied in ``_type`` and
#: ``_query_value`` below; nothing else is relaxed.
ALLOW_LIST: list[tuple[str, str, str]] = [
    (
        "snowflake-as-number",
        "snowflakes as JSON numbers (the attachments[].id placeholders 0, 1…)",
        "Discord reads a snowflake from a string or a number; the spec's SnowflakeType says "
        "string only",
    ),
    (
        "permission-as-string",
        "permission bit sets as decimal strings (overwrite allow/deny)",
        "Discord documents and returns permissions as strings (they pass 2^53) and reads "
        "them as strings; the spec types these request fields as integers",
    ),
    (
        "boolean-query-as-digit",
        "boolean query flags as 1/0 (GET /guilds/{id}?with_counts=1)",
        "Discord reads 1/0 and true/false for booleans in the query string",
    ),
]


@dataclass
class Operation:
    method: str
    template: str
    regex: re.Pattern[str]
    pointer: str  # JSON pointer of the operation in the spec
    path_params: dict[str, dict[str, Any]]  # resolved (no top-level $ref)
    query_params: dict[str, dict[str, Any]]
    body_types: dict[str, str]  # content type -> JSON pointer of its schema


def _head(path: str) -> str:
    """A path's first segment, "" when the template has a parameter there."""
    first = path.split("/", 2)[1] if path.startswith("/") else path
    return "" if first.startswith("{") else first


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


class Spec:
    """Discord's OpenAPI spec: route lookup and cached request validators."""

    def __init__(self, path: Path = SPEC_PATH) -> None:
        self.document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        resource = referencing.Resource.from_contents(
            self.document, default_specification=DRAFT202012
        )
        self.registry: referencing.Registry[Any] = referencing.Registry().with_resource(
            SPEC_URI, resource
        )
        self._resolver = self.registry.resolver(base_uri=SPEC_URI)
        self.operations: list[Operation] = list(self._operations())
        # Literal segments win over parameters (…/messages/pins before …/messages/{id}).
        self.operations.sort(key=lambda op: -op.template.count("/") * 10 + op.template.count("{"))
        # The operations a path may match, by method and first segment, in the order above:
        # every request is looked up here, and most of the spec's routes are elsewhere.
        self._by_head: dict[tuple[str, str], list[Operation]] = {}
        for op in self.operations:
            self._by_head.setdefault((op.method, _head(op.template)), []).append(op)
        self._validators: dict[str, Draft202012Validator] = {}
        #: bodies already found valid (canonical JSON per schema): the same command tree is
        #: synced by every bot start, and validating it costs most of a second
        self._known_good: set[tuple[str, str]] = set()
        #: oneOf lists whose branches are told apart by their "type" value (discriminators)
        self._discriminators: dict[int, dict[Any, dict[str, Any]] | None] = {}

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = self._resolver.lookup(SPEC_URI + node["$ref"]).contents
        return node

    def _operations(self) -> Iterator[Operation]:
        for template, item in self.document["paths"].items():
            common = item.get("parameters", [])
            for method, op in item.items():
                if method == "parameters":
                    continue
                params = [self._resolve(p) for p in [*common, *op.get("parameters", [])]]
                pattern = "".join(
                    f"(?P<{part[1:-1]}>[^/]+)" if part.startswith("{") else re.escape(part)
                    for part in re.split(r"(\{\w+\})", template)
                )
                pointer = f"#/paths/{_escape(template)}/{method}"
                body_types = {
                    ctype: f"{pointer}/requestBody/content/{_escape(ctype)}/schema"
                    for ctype in (op.get("requestBody") or {}).get("content", {})
                }
                yield Operation(
                    method.upper(),
                    template,
                    re.compile(f"^{pattern}$"),
                    pointer,
                    self._schemas(params, "path"),
                    self._schemas(params, "query"),
                    body_types,
                )

    def _schemas(self, params: list[dict[str, Any]], where: str) -> dict[str, dict[str, Any]]:
        """The parameters found ``where`` (path, query), each with its schema resolved."""
        return {
            p["name"]: self._resolve(p.get("schema", {})) for p in params if p.get("in") == where
        }

    def find(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        # A literal first segment wins over a parameter there, as in the order above.
        literal = self._by_head.get((method, _head(path)), [])
        for op in (*literal, *self._by_head.get((method, ""), [])):
            m = op.regex.match(path)
            if m:
                return op, m.groupdict()
        return None

    def discriminator(self, one_of: list[Any]) -> dict[Any, dict[str, Any]] | None:
        """{type value: branch schema} when every branch of ``one_of`` is an object schema
        whose ``type`` property is a distinct enum/const; else None. Cached."""
        key = id(one_of)
        if key in self._discriminators:
            return self._discriminators[key]
        branches: dict[Any, dict[str, Any]] | None = {}
        for branch in one_of:
            resolved = self._resolve(branch) if isinstance(branch, dict) else {}
            prop = (resolved.get("properties") or {}).get("type") or {}
            values = prop.get("enum") or ([prop["const"]] if "const" in prop else [])
            if not values or branches is None or any(v in branches for v in values):
                branches = None
                break
            for value in values:
                branches[value] = branch
        self._discriminators[key] = branches
        return branches

    def validator(self, pointer: str) -> Draft202012Validator:
        found = self._validators.get(pointer)
        if found is None:
            found = _Validator({"$ref": SPEC_URI + pointer}, registry=self.registry)
            self._validators[pointer] = found
        return found

    # ---------------------------------------------------------------- the check
    def check(
        self, method: str, path: str, query: dict[str, str], body: Any, multipart: bool
    ) -> Operation:
        """Raise Discord's error for a request the spec refuses; return its operation."""
        found = self.find(method, path)
        if found is None:
            raise ApiError(404, 0, "404: Not Found")
        op, params = found
        for name, raw in params.items():
            _check_scalar(name, raw, op.path_params.get(name, {}))
        for name, raw in query.items():
            query_schema = op.query_params.get(name)
            if query_schema is not None:
                _check_scalar(name, raw, query_schema)
        if body is not None and op.body_types:
            ctype = "multipart/form-data" if multipart else "application/json"
            pointer = op.body_types.get(ctype) or next(iter(op.body_types.values()))
            canonical = orjson.dumps(
                body, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str
            )
            key = (pointer, canonical.decode())
            if key in self._known_good:  # e.g. the same command tree synced by every test
                return op
            error = best_match(self.validator(pointer).iter_errors(body))
            if error is not None:
                raise _form_error(error)
            if len(self._known_good) > 4096:
                self._known_good.clear()
            self._known_good.add(key)
        return op


_DRAFT_TYPE = Draft202012Validator.VALIDATORS["type"]
_DRAFT_PROPERTIES = Draft202012Validator.VALIDATORS["properties"]


def _is_snowflake(schema: dict[str, Any]) -> bool:
    return schema.get("format") == "snowflake"


def _type(validator: Any, types: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    # ALLOW_LIST "snowflake-as-number": a non-negative integer where a snowflake string goes.
    if (
        _is_snowflake(schema)
        and isinstance(instance, int)
        and not isinstance(instance, bool)
        and 0 <= instance < 2**64
    ):
        return
    yield from _DRAFT_TYPE(validator, types, instance, schema)


#: Request fields holding a permission bit set.
PERMISSION_FIELDS = frozenset({"allow", "deny", "permissions", "default_member_permissions"})


def _properties(
    validator: Any, properties: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[Any]:
    # ALLOW_LIST "permission-as-string": a decimal string where the spec wants an integer.
    if isinstance(instance, dict):
        relaxed = {
            key: value
            for key, value in instance.items()
            if key in PERMISSION_FIELDS and isinstance(value, str) and value.isdigit()
        }
        if relaxed:
            instance = {k: v for k, v in instance.items() if k not in relaxed}
    yield from _DRAFT_PROPERTIES(validator, properties, instance, schema)


_DRAFT_ONE_OF = Draft202012Validator.VALIDATORS["oneOf"]


def _one_of(validator: Any, one_of: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """oneOf, but when the branches are objects told apart by their ``type`` value (message
    components, command options, interaction callbacks…), only the branch the instance names
    is checked, as an OpenAPI discriminator would: the same verdict, much faster, and the
    error points inside the right branch."""
    if isinstance(instance, dict) and "type" in instance:
        branches = discord_spec().discriminator(one_of)
        if branches is not None:
            branch = branches.get(instance["type"])
            if branch is not None:
                yield from validator.descend(instance, branch)
            else:
                yield ValidationError(
                    f"{instance['type']!r} is not one of {sorted(branches, key=str)}",
                    validator="enum",
                    validator_value=sorted(branches, key=str),
                    instance=instance["type"],
                    path=["type"],
                )
            return
    yield from _DRAFT_ONE_OF(validator, one_of, instance, schema)


_Validator = jsonschema.validators.extend(
    Draft202012Validator, {"type": _type, "properties": _properties, "oneOf": _one_of}
)


_SNOWFLAKE = re.compile(r"^(0|[1-9][0-9]*)$")


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _check_scalar(name: str, raw: str, schema: dict[str, Any]) -> None:
    """A path or query parameter (always a string on the wire) against its schema."""
    if "oneOf" in schema or "anyOf" in schema:
        options = schema.get("oneOf") or schema.get("anyOf") or []
        errors: list[ApiError] = []
        for option in options:
            try:
                _check_scalar(name, raw, option)
                return
            except ApiError as exc:
                errors.append(exc)
        raise errors[0]
    kinds = _types(schema)
    if _is_snowflake(schema):
        if not _SNOWFLAKE.match(raw) or int(raw) >= 2**64:
            raise _error(name, "NUMBER_TYPE_COERCE", f'Value "{raw}" is not snowflake.')
        return
    if "integer" in kinds:
        try:
            value = int(raw)
        except ValueError:
            raise _error(name, "NUMBER_TYPE_COERCE", f'Value "{raw}" is not int.') from None
        _check_bounds(name, value, schema, "int")
        return
    if "number" in kinds:
        try:
            number = float(raw)
        except ValueError:
            raise _error(name, "NUMBER_TYPE_COERCE", f'Value "{raw}" is not float.') from None
        _check_bounds(name, number, schema, "float")
        return
    if "boolean" in kinds:
        # ALLOW_LIST "boolean-query-as-digit": 1/0 as well as true/false.
        if raw.lower() not in ("true", "false", "1", "0"):
            raise _error(name, "BOOLEAN_TYPE_CONVERT", "Must be either true or false.")
        return
    if "enum" in schema and raw not in [str(v) for v in schema["enum"]]:
        raise _error(name, "BASE_TYPE_CHOICES", f"Value must be one of {schema['enum']}.")
    if "maxLength" in schema and len(raw) > schema["maxLength"]:
        raise _error(
            name, "BASE_TYPE_MAX_LENGTH", f"Must be {schema['maxLength']} or fewer in length."
        )


def _check_bounds(name: str, value: float, schema: dict[str, Any], kind: str) -> None:
    if "minimum" in schema and value < schema["minimum"]:
        raise _error(
            name,
            "NUMBER_TYPE_MIN",
            f"{kind} value should be greater than or equal to {schema['minimum']}.",
        )
    if "maximum" in schema and value > schema["maximum"]:
        raise _error(
            name,
            "NUMBER_TYPE_MAX",
            f"{kind} value should be less than or equal to {schema['maximum']}.",
        )


def _error(path: str, code: str, message: str) -> ApiError:
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed([p for p in path.split(".") if p]):
        errors = {part: errors}
    return ApiError(400, 50035, "Invalid Form Body", errors)


_JSON_TYPES = {
    "string": ("BASE_TYPE_STRING", "Must be a string."),
    "integer": ("NUMBER_TYPE_COERCE", "Value is not int."),
    "number": ("NUMBER_TYPE_COERCE", "Value is not float."),
    "boolean": ("BOOLEAN_TYPE_CONVERT", "Must be either true or false."),
    "object": ("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType"),
    "array": ("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType"),
}


def _form_error(error: ValidationError) -> ApiError:
    """A jsonschema error as Discord words it: 50035 with the nested errors object."""
    if error.validator in ("oneOf", "anyOf") and error.instance is not None:
        # "null or X": say what is wrong with X, as Discord does.
        real = [
            e for e in error.context or [] if e.validator != "type" or e.validator_value != "null"
        ]
        if real:
            return _form_error(best_match(real) or real[0])
    path = [str(p) for p in error.absolute_path]
    kind, value, instance = error.validator, error.validator_value, error.instance
    if kind == "required":
        missing = next((p for p in value if isinstance(instance, dict) and p not in instance), "")
        path.append(str(missing))
        code, message = "BASE_TYPE_REQUIRED", "This field is required"
    elif kind == "type":
        wanted = [t for t in ([value] if isinstance(value, str) else value) if t != "null"]
        code, message = _JSON_TYPES.get(wanted[0] if wanted else "", ("BASE_TYPE_BAD", "Invalid"))
        if instance is None:
            code, message = "BASE_TYPE_REQUIRED", "This field is required"
    elif kind in ("maxLength", "maxItems"):
        code, message = "BASE_TYPE_MAX_LENGTH", f"Must be {value} or fewer in length."
    elif kind in ("minLength", "minItems"):
        code, message = "BASE_TYPE_MIN_LENGTH", f"Must be {value} or more in length."
    elif kind in ("maximum", "exclusiveMaximum"):
        code, message = "NUMBER_TYPE_MAX", f"int value should be less than or equal to {value}."
    elif kind in ("minimum", "exclusiveMinimum"):
        code, message = "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {value}."
    elif kind in ("enum", "const"):
        options = value if kind == "enum" else [value]
        code, message = "BASE_TYPE_CHOICES", f"Value must be one of {tuple(options)}."
    elif kind == "pattern":
        code, message = "NUMBER_TYPE_COERCE", f'Value "{instance}" is not snowflake.'
    elif kind in ("oneOf", "anyOf"):
        code, message = "UNION_TYPE_CHOICES", "Value did not match any of the allowed types."
    elif kind == "uniqueItems":
        code, message = "LIST_ITEM_VALUE_DUPLICATE", "List items must be unique."
    else:
        code, message = "BASE_TYPE_BAD", error.message
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path):
        errors = {part: errors}
    return ApiError(400, 50035, "Invalid Form Body", errors)


_SPEC: Spec | None = None


def discord_spec() -> Spec:
    """The spec, loaded once per process (about half a second) with its validators cached."""
    global _SPEC
    if _SPEC is None:
        _SPEC = Spec()
    return _SPEC
