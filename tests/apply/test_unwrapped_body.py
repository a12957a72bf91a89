"""A chunk that drops a block's wrapper (`if (x) {` and its `}`) and writes the body a level
out ends on the enclosing block's `}`, at the depth the sketch writes it."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# Many small functions: a bare `}` is then too common a line to place a chunk by.
_HELPERS = "".join(
    f"\nexport function helper{n}(): number {{\n\treturn {n};\n}}\n" for n in range(45)
)

CLIENT = (
    """\
export class Client {
	private retryCount = 0;

	constructor(private readonly options: Options) {}

	static create(options: Options): Client {
		return new Client(options);
	}

	protected async retry<T>(fn: () => Promise<T>): Promise<T | void> {
		try {
			return await fn();
		} catch (error) {
			const ms = this.retryDelay(error);
			if (ms !== 0 && this.retryCount > 0) {
				await delay(ms);
				return this.retry(fn);
			}

			if (this.options.throwHttpErrors) {
				throw error;
			}
		}
	}

	protected retryDelay(error: unknown): number {
		this.retryCount++;
		return this.retryCount < this.options.limit ? 1000 : 0;
	}
}
"""
    + _HELPERS
)

# The sketch throws whatever the options say: its `throw error;` sits a level out, and its
# `\t\t}` closes the `catch`, the `if`'s `\t\t\t}` going with the `if` line.
SKETCH = """\
// ... existing code ...
	protected async retry<T>(fn: () => Promise<T>): Promise<T | void> {
		// ... existing code ...

			throw error;
		}
	// ... existing code ...
"""


def test_dropped_wrapper_closer_is_the_enclosing_block_s() -> None:
    result = merge(CLIENT, SKETCH, path="src/client.ts")
    assert isinstance(result, Merged), result
    assert result.text == CLIENT.replace(
        "\t\t\tif (this.options.throwHttpErrors) {\n\t\t\t\tthrow error;\n\t\t\t}\n",
        "\t\t\tthrow error;\n",
    )
