// Package browsers finds installed Chromium-family browsers (Chrome, Edge,
// Chromium, Brave, Chrome for Testing, Vivaldi) on Linux, macOS and Windows.
//
// Everything detection reads from the machine goes through a [Detector]: the
// environment, an executable check, PATH lookup, symlink resolution, directory
// listing and the version reader. [System] wires them to the real machine;
// tests fill them with fakes.
//
// # File layout
//
// The path tables are plain data in untagged files whose names Go does not
// read as OS constraints: linuxpaths.go, darwinpaths.go and windowspaths.go.
// The Detector picks a table by its GOOS field, so the unit tests exercise all
// three tables on any host against a fake file system. Windows paths are built
// with explicit backslashes (never path/filepath) for the same reason.
//
// The pure version parsers (--version output, Info.plist, the versioned
// directory next to a Windows executable) also live in untagged files
// (version.go, versioncmd.go) and are tested on Linux.
//
// The build-tagged files hold only what really differs per OS — the real
// executable check and the real version reader that System wires in:
//
//   - platform_linux.go and platform_other.go (other unixes): run
//     "<browser> --version" with captured output.
//   - platform_darwin.go: read CFBundleShortVersionString from the bundle's
//     Info.plist; running the binary might open a window.
//   - platform_windows.go: the highest version-named directory next to the
//     executable; running chrome.exe --version would start a browser.
package browsers
