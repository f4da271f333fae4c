"""What every study's plots share: saving a figure as PNG and SVG, and the
machine line under it. Needs matplotlib (Debian: python3-matplotlib)."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FORMATS = ("png", "svg")


def save(fig, out_dir, name):
    """Writes NAME.png and NAME.svg into out_dir, closes the figure, returns the paths."""
    files = []
    for fmt in FORMATS:
        path = os.path.join(out_dir, "%s.%s" % (name, fmt))
        fig.savefig(path, dpi=150, bbox_inches="tight")
        files.append(path)
    plt.close(fig)
    return files


def caption(fig, meta, below=-0.04):
    """The machine and commit line under the panels, clear of the axis labels."""
    if meta.get("machine_line"):
        fig.text(0.5, below, meta["machine_line"], ha="center", va="top", fontsize=8, color="0.3")
