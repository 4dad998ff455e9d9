// Package webproc runs dwcrawl commands as child processes for the
// benchmarks that watch a crawl from outside: a simulated web served by
// `dwcrawl testbed serve` in its own process (so its CPU time and its
// request log are its own), crawls killed with SIGKILL, and the CPU time
// of each process. It only ever listens on and dials loopback addresses.
package webproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Command describes how to run dwcrawl: its executable and extra
// environment (tests run their own binary as dwcrawl through an
// environment variable).
type Command struct {
	Exe string
	Env []string
}

// Cmd returns an exec.Cmd running dwcrawl with args.
func (c Command) Cmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.Exe, args...)
	cmd.Env = append(os.Environ(), c.Env...)
	return cmd
}

// Server is a simulated web served by a `dwcrawl testbed serve` child.
type Server struct {
	Addr string
	cmd  *exec.Cmd
	done chan error
	out  *tail
}

var servingRE = regexp.MustCompile(`serving on http://(\S+)`)

// Serve starts `dwcrawl testbed serve --addr 127.0.0.1:0 ARGS…` and waits
// until it prints its address.
func Serve(ctx context.Context, c Command, args ...string) (*Server, error) {
	cmd := c.Cmd(context.WithoutCancel(ctx), append([]string{"testbed", "serve", "--addr", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errs := &tail{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testbed serve: %w", err)
	}
	s := &Server{cmd: cmd, done: make(chan error, 1), out: errs}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		s.done <- cmd.Wait()
	}()
	select {
	case s.Addr = <-addr:
		return s, nil
	case err := <-s.done:
		return nil, fmt.Errorf("testbed serve ended before serving: %v: %s", err, errs)
	case <-ctx.Done():
		cmd.Process.Kill()
		<-s.done
		return nil, ctx.Err()
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		<-s.done
		return nil, errors.New("testbed serve: no address after 5 minutes")
	}
}

// CPU returns the server's CPU time (user + system) so far.
func (s *Server) CPU() (time.Duration, error) { return ProcCPU(s.cmd.Process.Pid) }

// Stop interrupts the server, waits for it and returns its CPU time.
func (s *Server) Stop() (time.Duration, error) {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	return CPUOf(s.cmd.ProcessState), nil
}

// CPUOf is the user + system time of an ended process.
func CPUOf(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// ProcCPU reads a running process's user + system time from /proc.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("CPU time of process %d: %w", pid, err)
	}
	// fields after the command name (which may hold spaces) in parentheses
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("CPU time of process %d: short /proc stat", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / ticks, nil
}

// Kill sends SIGKILL to a running command and waits for it.
func Kill(cmd *exec.Cmd) error {
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	cmd.Wait()
	return nil
}

// tail keeps the last few KB written to it (a child's stderr, for errors).
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = append([]byte(nil), t.b[len(t.b)-4<<10:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return strings.TrimSpace(string(t.b)) }

// Tail returns a writer that keeps the last few KB written to it, and a
// function that returns them.
func Tail() (io.Writer, func() string) {
	t := &tail{}
	return t, t.String
}
