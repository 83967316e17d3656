"""Runs vcztools command lines in one long-lived process, for the tests that
compare turbozarr with it: each vcztools run would otherwise start Python and
import its dependencies (about a second). Started with the interpreter of
.venv-vcz; reads one JSON list of arguments per line on stdin and answers one
JSON object per line on stdout: {"code", "stdout", "stderr"}, as the command
line tool would exit and print (tracebacks included, for crashes)."""

from __future__ import annotations

import json
import sys
import traceback

from click.testing import CliRunner
from vcztools.cli import vcztools_main


def main() -> None:
    runner = CliRunner()
    answers = sys.stdout
    for line in sys.stdin:
        args = json.loads(line)
        result = runner.invoke(vcztools_main, args, catch_exceptions=True)
        stderr = result.stderr
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            stderr += "".join(traceback.format_exception(result.exception))
        answers.write(json.dumps({"code": result.exit_code, "stdout": result.stdout,
                                  "stderr": stderr}) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
