"""Code copied into new definitions of the same names as the original's.

The sketch writes methods for a new type whose bodies repeat the original type's methods of
the same names, while the original's methods stay (hidden under a marker, or their headers
shown): a second implementation beside the first, not code moved out of them.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

CODECS = """package viper

type codecRegistry struct {
	v *Viper
}

func (r codecRegistry) Encoder(format string) (Encoder, error) {
	encoder, ok := r.codec(format)
	if !ok {
		return nil, ErrEncoderNotFound
	}

	return encoder, nil
}

func (r codecRegistry) codec(format string) (Codec, bool) {
	switch format {
	case "json":
		return json.Codec{}, true
	}

	return nil, false
}
"""


def test_code_copied_into_a_same_named_method_of_a_new_type_is_a_copy() -> None:
    sketch = (
        "// ... unchanged ...\n"
        "func (r codecRegistry) codec(format string) (Codec, bool) {\n"
        "\t// ... unchanged ...\n"
        "\n"
        "\treturn nil, false\n"
        "}\n"
        "\n"
        "type DefaultCodecRegistry struct {\n"
        "\tcodecs map[string]Codec\n"
        "}\n"
        "\n"
        "func (r *DefaultCodecRegistry) Encoder(format string) (Encoder, error) {\n"
        "\tencoder, ok := r.codec(format)\n"
        "\tif !ok {\n"
        "\t\treturn nil, ErrEncoderNotFound\n"
        "\t}\n"
        "\n"
        "\treturn encoder, nil\n"
        "}\n"
    )
    result = merge(CODECS, sketch, path="encoding.go")
    assert isinstance(result, Merged), result
    assert result.text == CODECS + (
        "\n"
        "type DefaultCodecRegistry struct {\n"
        "\tcodecs map[string]Codec\n"
        "}\n"
        "\n"
        "func (r *DefaultCodecRegistry) Encoder(format string) (Encoder, error) {\n"
        "\tencoder, ok := r.codec(format)\n"
        "\tif !ok {\n"
        "\t\treturn nil, ErrEncoderNotFound\n"
        "\t}\n"
        "\n"
        "\treturn encoder, nil\n"
        "}\n"
    )
