package proc

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Job is a Windows Job object with kill-on-close: when its last handle
// closes — on Close, or by the kernel when this process dies, however it
// dies — every process in it is terminated.
type Job struct{ h windows.Handle }

// KillOnCloseLimits is the limit a Job sets.
func KillOnCloseLimits() windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	return info
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// StartInJob starts cmd suspended, puts it in a new kill-on-close Job and
// resumes it, so none of its children can be created outside the Job.
// cmd.SysProcAttr's other fields are kept.
func StartInJob(cmd *exec.Cmd) (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	job := &Job{h: h}
	info := KillOnCloseLimits()
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		job.Close()
		return nil, fmt.Errorf("configure job object: %w", err)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		job.Close()
		return nil, err
	}
	fail := func(err error) (*Job, error) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		job.Close()
		return nil, err
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME,
		false, uint32(cmd.Process.Pid))
	if err != nil {
		return fail(fmt.Errorf("open process: %w", err))
	}
	defer windows.CloseHandle(ph)
	if err := windows.AssignProcessToJobObject(h, ph); err != nil {
		return fail(fmt.Errorf("assign process to job object: %w", err))
	}
	if r, _, _ := ntResumeProcess.Call(uintptr(ph)); r != 0 {
		return fail(fmt.Errorf("resume process: NTSTATUS 0x%x", r))
	}
	return job, nil
}

// Terminate ends every process in the Job now.
func (j *Job) Terminate() {
	if j != nil && j.h != 0 {
		_ = windows.TerminateJobObject(j.h, 1)
	}
}

// Close releases the Job; kill-on-close ends what still runs in it.
func (j *Job) Close() {
	if j != nil && j.h != 0 {
		_ = windows.CloseHandle(j.h)
		j.h = 0
	}
}
