import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
# ../shared beside the repository (CI lays it there), or TOOLSCHEMA_SHARED.
SHARED = Path(os.environ.get("TOOLSCHEMA_SHARED", REPO.parent / "shared"))
