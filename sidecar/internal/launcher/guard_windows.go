package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the browser is put into a Job object with kill-on-close: the
// coordinator holds the only handle, so when it exits (or is killed) the
// kernel closes the handle and terminates every process in the job. The
// browser starts suspended so that none of its children can be created
// before it is in the job.

func lockThread() {}

func needsNoSandbox() bool { return false }

type jobGuard struct{ job windows.Handle }

func (g jobGuard) kill(*os.Process) {
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
	}
}

func (g jobGuard) release() {
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
	}
}

// killOnCloseLimits is the job's limit: kill every process when the last
// handle closes.
func killOnCloseLimits() windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	return info
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := killOnCloseLimits()
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("configure job object: %w", err)
	}
	return job, nil
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

func startGuarded(cmd *exec.Cmd) (guard, error) {
	job, err := newKillOnCloseJob()
	if err != nil {
		return jobGuard{}, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return jobGuard{}, err
	}
	fail := func(err error) (guard, error) {
		_ = cmd.Process.Kill()
		windows.CloseHandle(job)
		return jobGuard{}, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME,
		false, uint32(cmd.Process.Pid))
	if err != nil {
		return fail(fmt.Errorf("open browser process: %w", err))
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fail(fmt.Errorf("assign browser to job object: %w", err))
	}
	if r, _, _ := ntResumeProcess.Call(uintptr(h)); r != 0 {
		return fail(fmt.Errorf("resume browser: NTSTATUS 0x%x", r))
	}
	return jobGuard{job: job}, nil
}
