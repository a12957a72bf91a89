"""A Go import the sketch replaces by another package imported under the same name.

Go refuses a file that imports two packages under one name. A sketch that writes a new import
taking the name of an original import (`toml "github.com/pelletier/go-toml"` beside
`"github.com/BurntSushi/toml"`) replaces that import, wherever in the block it writes the new
one: the merge drops the old spec rather than refusing the deletion as unexplained.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

UTIL = """package viper

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/hashicorp/hcl"
	"github.com/magiconair/properties"
	"github.com/spf13/cast"
	"gopkg.in/yaml.v2"
)

func unmarshallConfigReader(in io.Reader, c map[string]interface{}, configType string) error {
	buf := new(bytes.Buffer)
	buf.ReadFrom(in)

	switch strings.ToLower(configType) {
	case "yaml", "yml":
		err := yaml.Unmarshal(buf.Bytes(), &c)
		if err != nil {
			return ConfigParseError{err}
		}

	case "toml":
		if _, err := toml.Decode(buf.String(), &c); err != nil {
			return ConfigParseError{err}
		}

	case "properties", "props", "prop":
		p, err := properties.Load(buf.Bytes(), properties.UTF8)
		if err != nil {
			return ConfigParseError{err}
		}
		for _, key := range p.Keys() {
			value, _ := p.Get(key)
			c[key] = cast.ToString(value)
		}
	}

	insensitiviseMap(c)
	return fmt.Errorf("%v", hcl.Decode)
}
"""


def test_a_new_import_under_an_original_imports_name_replaces_it() -> None:
    sketch = (
        "// ...\n"
        "\n"
        '\t"github.com/hashicorp/hcl"\n'
        '\t"github.com/magiconair/properties"\n'
        '\ttoml "github.com/pelletier/go-toml"\n'
        '\t"github.com/spf13/cast"\n'
        "\t// ...\n"
        "func unmarshallConfigReader(in io.Reader, c map[string]interface{}, configType string) "
        "error {\n"
        "\t// ...\n"
        '\tcase "toml":\n'
        "\t\ttree, err := toml.LoadReader(buf)\n"
        "\t\tif err != nil {\n"
        "\t\t\treturn ConfigParseError{err}\n"
        "\t\t}\n"
        "\t\ttmap := tree.ToMap()\n"
        "\t\tfor k, v := range tmap {\n"
        "\t\t\tc[k] = v\n"
        "\t\t}\n"
        "\t// ...\n"
    )
    result = merge(UTIL, sketch, path="util.go")
    assert isinstance(result, Merged), result
    expected = UTIL.replace('\t"github.com/BurntSushi/toml"\n', "").replace(
        '\t"github.com/magiconair/properties"\n',
        '\t"github.com/magiconair/properties"\n\ttoml "github.com/pelletier/go-toml"\n',
    )
    expected = expected.replace(
        "\t\tif _, err := toml.Decode(buf.String(), &c); err != nil {\n"
        "\t\t\treturn ConfigParseError{err}\n",
        "\t\ttree, err := toml.LoadReader(buf)\n"
        "\t\tif err != nil {\n"
        "\t\t\treturn ConfigParseError{err}\n"
        "\t\t}\n"
        "\t\ttmap := tree.ToMap()\n"
        "\t\tfor k, v := range tmap {\n"
        "\t\t\tc[k] = v\n",
    )
    assert result.text == expected
