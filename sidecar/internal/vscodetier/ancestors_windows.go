package vscodetier

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/windows"
)

func parentOf(pid int) (int, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if int(e.ProcessID) == pid {
			return int(e.ParentProcessID), nil
		}
	}
	return 0, errors.New("process not found")
}

// commandLine reads another process's command line with
// NtQueryInformationProcess(ProcessCommandLineInformation), Windows 8.1+.
func commandLine(pid int) ([]string, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	buf := make([]byte, 64<<10)
	var n uint32
	if err := windows.NtQueryInformationProcess(h, windows.ProcessCommandLineInformation, unsafe.Pointer(&buf[0]), uint32(len(buf)), &n); err != nil {
		return nil, err
	}
	us := (*windows.NTUnicodeString)(unsafe.Pointer(&buf[0]))
	return splitWindowsCommandLine(us.String()), nil
}
