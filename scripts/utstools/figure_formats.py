"""The file formats every figure is written in (docs/studies.md section 6):
UTS_FIGURE_FORMATS, a comma list of png, svg and pdf, else PNG and SVG.
Kept apart from plot_common (which imports matplotlib) so that each script
can refuse a bad value at its start, before any run or figure."""
import os
import sys

KNOWN = ("png", "svg", "pdf")
DEFAULT = ("png", "svg")


def parse(text):
    """The formats named by `text` (None when it names none or an unknown one)."""
    text = (text or "").strip()
    if not text:
        return DEFAULT
    names = [f.strip().lower() for f in text.split(",")]
    if not all(f in KNOWN for f in names):
        return None
    return tuple(dict.fromkeys(names))


def formats(prog=None):
    """The formats from the environment; a bad value: one line on stderr naming
    `prog` (default: the running script), exit status 2."""
    text = os.environ.get("UTS_FIGURE_FORMATS", "")
    chosen = parse(text)
    if chosen is None:
        sys.stderr.write("%s: UTS_FIGURE_FORMATS=%r: expected a comma list of %s\n"
                         % (prog or os.path.basename(sys.argv[0]), text, ", ".join(KNOWN)))
        sys.exit(2)
    return chosen
