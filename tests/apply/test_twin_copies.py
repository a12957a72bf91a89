"""Issue 17, round 12: a line the sketch writes into one function that another function holds.

The copied-line checks refuse a telling line the original holds once written anew near that
copy. Written into another function than the original's copy, between lines of that function
the chunk matched and pinned there by its header, or by a line no line of the other function
is like, with the other function kept whole, it is the twin of that function's line
(`twin_copies.in_other_function`). Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

_GO_ORIGINAL = (
    "package decode\n"
    "\n"
    "import (\n"
    '\t"fmt"\n'
    '\t"reflect"\n'
    ")\n"
    "\n"
    "func decodeSlice(name string, data interface{}, val reflect.Value) error {\n"
    "\tdataVal := reflect.Indirect(reflect.ValueOf(data))\n"
    "\tvalType := val.Type()\n"
    "\telemType := valType.Elem()\n"
    "\tfor i := 0; i < dataVal.Len(); i++ {\n"
    "\t\tval.Index(i).Set(reflect.Zero(elemType))\n"
    "\t}\n"
    "\treturn nil\n"
    "}\n"
    "\n"
    "func decodeStruct(name string, data interface{}, val reflect.Value) error {\n"
    "\tdataVal := reflect.Indirect(reflect.ValueOf(data))\n"
    "\tdataValKind := dataVal.Kind()\n"
    "\tif dataValKind != reflect.Map {\n"
    "\t\treturn fmt.Errorf(\"'%s': expected a map, got '%s'\", name, dataValKind)\n"
    "\t}\n"
    "\treturn nil\n"
    "}\n"
)


def test_a_check_copied_from_a_sibling_function_is_written_into_the_one_shown() -> None:
    """The sketch shows `decodeSlice` from its header on and adds the kind check that
    `decodeStruct`, right below it, already has. Its header (held once) pins the chunk to
    `decodeSlice`; read over `decodeStruct` the chunk would rename it to a name the file
    declares. `decodeStruct` stays whole under the marker: both keep the line."""
    sketch = (
        "// ... existing code ...\n"
        "func decodeSlice(name string, data interface{}, val reflect.Value) error {\n"
        "\tdataVal := reflect.Indirect(reflect.ValueOf(data))\n"
        "\tdataValKind := dataVal.Kind()\n"
        "\tif dataValKind != reflect.Slice {\n"
        "\t\treturn fmt.Errorf(\"'%s': expected a slice, got %s\", name, dataValKind)\n"
        "\t}\n"
        "\tvalType := val.Type()\n"
        "// ... existing code ...\n"
    )
    expected = _GO_ORIGINAL.replace(
        "\tdataVal := reflect.Indirect(reflect.ValueOf(data))\n\tvalType := val.Type()\n",
        "\tdataVal := reflect.Indirect(reflect.ValueOf(data))\n"
        "\tdataValKind := dataVal.Kind()\n"
        "\tif dataValKind != reflect.Slice {\n"
        "\t\treturn fmt.Errorf(\"'%s': expected a slice, got %s\", name, dataValKind)\n"
        "\t}\n"
        "\tvalType := val.Type()\n",
    )
    result = merge(_GO_ORIGINAL, sketch, path="decode.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_a_callbacks_line_written_again_in_the_outer_body_is_kept_twice() -> None:
    """The nested `send` callback sets the event; the sketch sets it too in the outer body's
    `except` branch, between lines of the outer function held once, no line of `send` like
    them. `send` is another function, which the merge keeps whole: not a copy placed beside
    the original's."""
    original = (
        "class Transport:\n"
        "    async def handle(self, request):\n"
        "        status_code = None\n"
        "        finished = Event()\n"
        "\n"
        "        async def send(message):\n"
        "            nonlocal status_code\n"
        "            if message['type'] == 'start':\n"
        "                status_code = message['status']\n"
        "            elif message['type'] == 'body':\n"
        "                finished.set()\n"
        "\n"
        "        try:\n"
        "            await self.app(request, send)\n"
        "        except Exception:\n"
        "            if self.raise_errors or not finished.is_set():\n"
        "                raise\n"
        "\n"
        "        assert finished.is_set()\n"
        "        return Response(status_code)\n"
    )
    sketch = (
        "# ... existing code ...\n"
        "        try:\n"
        "            await self.app(request, send)\n"
        "        except Exception:\n"
        "            if self.raise_errors:\n"
        "                raise\n"
        "            finished.set()\n"
        "            if status_code is None:\n"
        "                status_code = 500\n"
        "\n"
        "        assert finished.is_set()\n"
        "# ... existing code ...\n"
    )
    expected = original.replace(
        "            if self.raise_errors or not finished.is_set():\n                raise\n",
        "            if self.raise_errors:\n                raise\n            finished.set()\n"
        "            if status_code is None:\n                status_code = 500\n",
    )
    result = merge(original, sketch, path="transport.py")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_twin_methods_pinned_by_no_header_stay_refused() -> None:
    """Two `format_time` methods alike but for the clock and a space; the sketch drops the
    space from the local one. Its lines held once match the UTC twin verbatim, and the header
    it shows is the twins' both: nothing pins the chunk to either, and a line like the one
    it matched stands in the other. Refused, not written over the UTC twin."""
    method = (
        "    fn format_time(&self, w: &mut dyn fmt::Write) -> fmt::Result {\n"
        "        let time = chrono::CLOCK::now();\n"
        "        match self.format {\n"
        '            ChronoFmtType::Rfc3339 => write!(w, "{}SPACE", time.to_rfc3339()),\n'
        '            ChronoFmtType::Custom(ref f) => write!(w, "{}SPACE", time.format(f)),\n'
        "        }\n"
        "    }\n"
    )

    def twin(clock: str, space: str) -> str:
        return method.replace("CLOCK", clock).replace("SPACE", space)

    original = (
        "use std::fmt;\n"
        "\n"
        "impl FormatTime for ChronoUtc {\n"
        f"{twin('Utc', '')}"
        "}\n"
        "\n"
        "impl FormatTime for ChronoLocal {\n"
        f"{twin('Local', ' ')}"
        "}\n"
    )
    sketch = "// ... existing code ...\n" + twin("Local", "") + "}\n"
    result = merge(original, sketch, path="time.rs")
    assert isinstance(result, Refused), result.text


def _getter(name: str, kind: str, what: str) -> str:
    """One of viper's getter pairs: a doc comment, the package function, the method."""
    return (
        f"// Returns the value associated with the key as {what}\n"
        f"func Get{name}(key string) {kind} {{ return v.Get{name}(key) }}\n"
        f"func (v *Viper) Get{name}(key string) {kind} {{\n"
        f"\treturn cast.To{name}(v.Get(key))\n"
        "}\n"
        "\n"
    )


def test_a_siblings_doc_comment_copied_onto_a_new_function_is_kept_twice() -> None:
    """The sketch adds `GetInt64` after `GetInt`'s method, with `GetInt`'s doc comment word
    for word. The sketch's copy documents a function of a name the file declares nowhere,
    the original's documents `GetInt`, which stays: the doc of a new function copied from
    its sibling's, not the old comment placed beside itself. (The closers a file of many
    small functions repeats anchor nothing, so the chunk holds only by its first lines.)"""
    helpers = "".join(
        f"func clamp{i}(x int) int {{\n\tif x > {i} {{\n\t\treturn x\n\t}}\n\treturn {i}\n}}\n\n"
        for i in range(20)
    )
    getters = [
        _getter("String", "string", "a string"),
        _getter("Bool", "bool", "a boolean"),
        _getter("Int", "int", "an integer"),
        _getter("Float64", "float64", "a float64"),
    ]
    original = "package viper\n\n" + helpers + "".join(getters)
    added = _getter("Int64", "int64", "an integer").replace("\n\n", "\n")
    sketch = (
        "// ...\n"
        "func (v *Viper) GetInt(key string) int {\n"
        "\treturn cast.ToInt(v.Get(key))\n"
        "}\n"
        "\n"
        f"{added}"
        "\n"
        "// ...\n"
    )
    expected = "package viper\n\n" + helpers + "".join(getters[:3]) + added + "\n" + getters[3]
    result = merge(original, sketch, path="viper.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_a_twin_class_edit_pinned_by_the_next_methods_header_is_kept() -> None:
    """Twin sync and async transports; the sync one's error message is an f-string, the
    sketch makes the async one's one too. Its chunk ends on `async def __aenter__`, a header
    the file holds once: read over the sync twin the chunk would rename `__enter__` to a name
    the file declares. The sync `__init__` stays whole: both hold the line."""
    original = (
        "class Transport:\n"
        "    def __init__(self, proxy):\n"
        "        if proxy.scheme in ('http', 'https'):\n"
        "            self._pool = HTTPProxy(proxy)\n"
        "        else:  # pragma: no cover\n"
        "            raise ValueError(\n"
        "                \"Proxy protocol must be either 'http' or 'https',\"\n"
        '                f" but got {proxy.scheme!r}."\n'
        "            )\n"
        "\n"
        "    def __enter__(self):\n"
        "        self._pool.__enter__()\n"
        "        return self\n"
        "\n"
        "\n"
        "class AsyncTransport:\n"
        "    def __init__(self, proxy):\n"
        "        if proxy.scheme in ('http', 'https'):\n"
        "            self._pool = AsyncHTTPProxy(proxy)\n"
        "        else:  # pragma: no cover\n"
        "            raise ValueError(\n"
        "                \"Proxy protocol must be either 'http' or 'https',\"\n"
        '                " but got {proxy.scheme!r}."\n'
        "            )\n"
        "\n"
        "    async def __aenter__(self):\n"
        "        await self._pool.__aenter__()\n"
        "        return self\n"
    )
    sketch = (
        "# ... existing code ...\n"
        "        else:  # pragma: no cover\n"
        "            raise ValueError(\n"
        "                \"Proxy protocol must be either 'http' or 'https',\"\n"
        '                f" but got {proxy.scheme!r}."\n'
        "            )\n"
        "\n"
        "    async def __aenter__(self):\n"
        "        # ... existing code ...\n"
    )
    expected = original.replace('                " but got', '                f" but got')
    result = merge(original, sketch, path="transports.py")
    assert isinstance(result, Merged), result
    assert result.text == expected
