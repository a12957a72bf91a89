"""Issue 17: ties told by scope (`lazy_scope.scoped_reading`).

Where a sketch fits two look-alike places equally well (two callbacks that open alike), the
new lines may use a local name only one of them declares (`let dir = ...`), or declares only
before one of them: code placed at the other would not compile, so a careful reader puts it
where the name is declared. The tie stays where both places declare the name, and where the
name is a parameter (its scope is not told by a declaration).
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

SERVE = """import fs from "fs";
import path from "path";

export function serveBuild(app: App, root: string) {
  app.get("/assets/*", (req, res, next) => {
    if (!req.path) {
      return next();
    }
    res.setHeader("Cache-Control", "max-age=31536000");
  });

  app.get("*", (req, res, next) => {
    let dir = path.join(root, "build", "client");
    if (!req.path) {
      return next();
    }
    res.sendFile(path.join(dir, "index.html"), next);
  });
}
"""

GUARDED_SEND = """// ... existing code ...
    if (!req.path) {
      return next();
    }
    let file = path.join(dir, "index.html");
    if (fs.existsSync(file)) {
      res.sendFile(file, next);
    }
// ... existing code ...
"""

NEW_LINES = """    let file = path.join(dir, "index.html");
    if (fs.existsSync(file)) {
      res.sendFile(file, next);
    }
"""


def test_new_lines_go_where_the_local_name_they_use_is_declared() -> None:
    # Both callbacks open on the same guard; only the second declares `dir`.
    result = merge(SERVE, GUARDED_SEND, path="serve.ts")
    assert isinstance(result, Merged), result
    anchor = '    res.sendFile(path.join(dir, "index.html"), next);\n'
    assert result.text == SERVE.replace(anchor, NEW_LINES + anchor)


CONFIGURE = """import { enableLogs, readLevel, setLevel } from "./log";

export function configure(options: Options) {
  if (options.verbose) {
    enableLogs(options.output);
  }
  const level = readLevel(options);
  if (options.strict) {
    enableLogs(options.output);
  }
  return level;
}
"""

SET_LEVEL = """// ... existing code ...
    enableLogs(options.output);
  }
  setLevel(level);
// ... existing code ...
"""


def test_new_lines_go_after_the_declaration_of_the_name_they_use() -> None:
    # Both guards end alike in one function; only after the second is `level` declared.
    result = merge(CONFIGURE, SET_LEVEL, path="configure.ts")
    assert isinstance(result, Merged), result
    assert result.text == CONFIGURE.replace(
        "  return level;\n", "  setLevel(level);\n  return level;\n"
    )


def test_a_name_both_places_declare_keeps_the_tie() -> None:
    original = SERVE.replace(
        '  app.get("/assets/*", (req, res, next) => {\n',
        '  app.get("/assets/*", (req, res, next) => {\n'
        '    let dir = path.join(root, "build", "assets");\n',
    )
    assert isinstance(merge(original, GUARDED_SEND, path="serve.ts"), Refused)


def test_a_parameter_tells_no_scope() -> None:
    # `dir` is a parameter of the second callback, not a declaration: its scope is not told.
    original = SERVE.replace(
        '  app.get("*", (req, res, next) => {\n', "  serve((req, res, next, dir) => {\n"
    )
    original = original.replace('    let dir = path.join(root, "build", "client");\n', "")
    assert isinstance(merge(original, GUARDED_SEND, path="serve.ts"), Refused)
