"""Definitions that go with the one the sketch deletes: the methods of a deleted Python class,
and the methods of a deleted Go type (declared beside it, bound by their receiver). Each is
judged with its owner, not as code the sketch forgot: a method name the file uses elsewhere
(an interface's `Encoder`, every class's `__init__`) is no use of the deleted one."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

GO = """\
package codec

type Encoder interface {
	Encode(v any) ([]byte, error)
}

type Registry interface {
	Encoder(format string) (Encoder, error)
}

type options struct {
	registry Registry
	fallback Registry
}

type Option func(o *options)

// WithRegistry sets a custom registry.
func WithRegistry(r Registry) Option {
	return func(o *options) {
		o.registry = r
	}
}

// WithRegistries sets a custom registry and its fallback.
func WithRegistries(r Registry) Option {
	return func(o *options) {
		o.fallback = r
		o.registry = r
	}
}

type defaultRegistry struct {
	formats []string
}

func (r defaultRegistry) Encoder(format string) (Encoder, error) {
	for _, f := range r.formats {
		if f == format {
			return nil, nil
		}
	}
	return nil, nil
}

// NewOptions returns the default options.
func NewOptions() *options {
	return &options{}
}
"""

GO_SKETCH = """\
// ... existing code ...
		o.registry = r
	}
}

// NewOptions returns the default options.
// ... existing code ...
"""


def test_a_go_type_goes_with_its_methods() -> None:
    outcome = merge(GO, GO_SKETCH, path="codec.go")
    assert isinstance(outcome, Merged), outcome
    assert "defaultRegistry" not in outcome.text
    assert "func WithRegistries" in outcome.text
    assert "type Registry interface" in outcome.text


def test_a_go_method_of_a_type_the_merge_keeps_is_still_refused() -> None:
    # The sketch shows no lines around the method alone: its deletion is not on purpose.
    sketch = "// ... existing code ...\ntype defaultRegistry struct {\n\tformats []string\n}\n"
    sketch += "\n// NewOptions returns the default options.\n// ... existing code ...\n"
    outcome = merge(GO, sketch, path="codec.go")
    assert isinstance(outcome, Refused), outcome
    assert "'Encoder'" in outcome.reason


PY = """\
import json


def dumps(data):
    return json.dumps(data, indent=2)


class Loader(type):
    \"\"\"Metaclass that records the formats a view handles.\"\"\"

    def __init__(cls, name, bases, d):
        super().__init__(name, bases, d)
        cls.formats = sorted(d.get("formats", ()))


class View(metaclass=Loader):
    \"\"\"Renders its data as JSON.\"\"\"

    def __init__(self, data):
        self.data = data

    def render(self):
        return dumps(self.data)
"""

PY_SKETCH = """\
# ... existing code ...
def dumps(data):
    return json.dumps(data, indent=2)


class View:
    \"\"\"Renders its data as JSON.\"\"\"
# ... existing code ...
"""


def test_a_python_class_goes_with_its_methods() -> None:
    outcome = merge(PY, PY_SKETCH, path="views.py")
    assert isinstance(outcome, Merged), outcome
    assert "class Loader" not in outcome.text
    assert "def __init__(self, data):" in outcome.text
    assert "class View:" in outcome.text


def test_a_go_method_with_an_unnamed_receiver_goes_with_its_type() -> None:
    original = GO.replace("func (r defaultRegistry) Encoder", "func (defaultRegistry) Encoder")
    original = original.replace("range r.formats", "range []string{}")
    outcome = merge(original, GO_SKETCH, path="codec.go")
    assert isinstance(outcome, Merged), outcome
    assert "defaultRegistry" not in outcome.text
