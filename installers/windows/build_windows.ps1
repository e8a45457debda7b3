# Build the Windows installer: the one-folder app (PyInstaller), then the Inno Setup 6 script.
# Run from the repository root in a venv that has the project:  pip install -e ".[build]"
# Needs Inno Setup 6's iscc.exe on PATH (https://jrsoftware.org/isinfo.php).
$ErrorActionPreference = "Stop"
python -m PyInstaller --noconfirm --clean --workpath build\pyinstaller --distpath dist installers\hindsight-desktop.spec
if ($LASTEXITCODE -ne 0) { throw "PyInstaller failed" }
$version = python -c "import hindsight_desktop; print(hindsight_desktop.__version__)"
iscc "/DAppVersion=$version" installers\windows\hindsight-desktop.iss
if ($LASTEXITCODE -ne 0) { throw "iscc failed" }
Write-Host "built dist\hindsight-desktop-$version-windows-x64-setup.exe"
