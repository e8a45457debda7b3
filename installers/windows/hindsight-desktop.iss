; Inno Setup 6 script: a per-user installer for Hindsight Desktop on Windows (no administrator needed).
;
; Build the one-folder app first, then compile this script (installers/windows/build_windows.ps1
; does both):
;   python -m PyInstaller --noconfirm --clean --distpath dist installers\hindsight-desktop.spec
;   iscc /DAppVersion=0.1.0 installers\windows\hindsight-desktop.iss
; The result is dist\hindsight-desktop-<version>-windows-x64-setup.exe.
;
; The memory lives outside the install folder, in %LOCALAPPDATA%\hindsight-desktop (platformdirs'
; user data and config folder for "hindsight-desktop"; HINDSIGHT_DATA_DIR moves it). Uninstalling
; asks whether to keep it.

#define AppName "Hindsight Desktop"
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppExe "hindsight-desktop.exe"
#define DataFolder "hindsight-desktop"
; The same value name the app's own "Start at login" setting writes (app/autostart.py, RUN_VALUE).
#define RunKey "Software\Microsoft\Windows\CurrentVersion\Run"
#define RunValue "Hindsight Desktop"

[Setup]
AppId={{DE93685C-9AA9-44C3-B859-49CAE77FB866}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Hindsight Desktop
AppComments=Private long-term memory for the AI assistants on this computer
PrivilegesRequired=lowest
DefaultDirName={localappdata}\Programs\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=hindsight-desktop-{#AppVersion}-windows-x64-setup
SetupIconFile=..\..\resources\icons\hindsight-desktop.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; Closes a running Hindsight Desktop (Restart Manager) before files are replaced.
CloseApplications=yes
RestartApplications=no

[Tasks]
Name: "startatlogin"; Description: "Start {#AppName} when I log in"; GroupDescription: "Start-up:"
Name: "desktopicon"; Description: "Create a desktop shortcut"; GroupDescription: "Shortcuts:"; Flags: unchecked

[Files]
Source: "..\..\dist\hindsight-desktop\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "Private memory for your AI assistants"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; Quoted the way the app writes it (subprocess.list2cmdline), so its Settings checkbox agrees.
Root: HKCU; Subkey: "{#RunKey}"; ValueType: string; ValueName: "{#RunValue}"; ValueData: """{app}\{#AppExe}"""; Flags: uninsdeletevalue; Tasks: startatlogin

[Run]
Filename: "{app}\{#AppExe}"; Description: "Start {#AppName} now"; Flags: nowait postinstall skipifsilent

[UninstallRun]
; The app and any stdio MCP servers an assistant started hold files in {app} open.
Filename: "{sys}\taskkill.exe"; Parameters: "/F /T /IM {#AppExe}"; Flags: runhidden; RunOnceId: "StopHindsight"

[Code]
function MemoryFolder(): String;
begin
  Result := GetEnv('HINDSIGHT_DATA_DIR');
  if Result = '' then
    Result := ExpandConstant('{localappdata}\{#DataFolder}');
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  Folder: String;
begin
  if CurUninstallStep <> usPostUninstall then
    exit;
  { Also when "start at login" was turned on from the app's Settings rather than by this installer. }
  RegDeleteValue(HKCU, '{#RunKey}', '{#RunValue}');
  Folder := MemoryFolder();
  if not DirExists(Folder) then
    exit;
  { A silent uninstall (an upgrade script, an admin tool) always keeps the memory. }
  if UninstallSilent() then
    exit;
  if MsgBox('Keep your memories?' + #13#10 + #13#10 +
            'What your assistants remember, your settings, client tokens and the embedding model are in:' + #13#10 +
            Folder + #13#10 + #13#10 +
            'Yes keeps them: installing Hindsight Desktop again picks them up.' + #13#10 +
            'No deletes them for good.',
            mbConfirmation, MB_YESNO or MB_DEFBUTTON1) = IDNO then
  begin
    if not DelTree(Folder, True, True, True) then
      MsgBox('Some files in ' + Folder + ' could not be deleted; remove the folder by hand.', mbError, MB_OK);
  end;
end;
