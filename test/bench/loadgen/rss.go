package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// settleOptions say when a process's RSS has stopped moving.
type settleOptions struct {
	every     time.Duration // between samples
	span      time.Duration // how long the samples must stay within tolerance
	tolerance float64       // the largest spread (max - min) as a fraction of the last sample
	bound     time.Duration // give up after this long
}

// settledRSS samples pid's RSS every o.every until the samples of the
// last o.span spread by at most o.tolerance of the last one, and returns
// that last one; after o.bound it returns the last sample and false. The
// runtime returns freed memory to the system gradually, so the RSS of a
// router that has just accepted thousands of connections keeps falling
// for a while; polling follows it instead of guessing a delay.
func settledRSS(pid int, o settleOptions) (int64, bool, error) {
	keep := max(int(o.span/o.every), 1) + 1
	var window []int64
	deadline := time.Now().Add(o.bound)
	for {
		v, err := rss(pid)
		if err != nil {
			return 0, false, err
		}
		window = append(window, v)
		if len(window) > keep {
			window = window[1:]
		}
		if len(window) == keep && spread(window) <= int64(o.tolerance*float64(v)) {
			return v, true, nil
		}
		if time.Now().After(deadline) {
			return v, false, nil
		}
		time.Sleep(o.every) // sampling a measurement, not synchronising
	}
}

// spread is max - min of the samples.
func spread(samples []int64) int64 {
	lo, hi := samples[0], samples[0]
	for _, v := range samples {
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi - lo
}

// rss reads pid's resident set size in bytes (VmRSS in /proc/PID/status,
// Linux only).
func rss(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("rss of process %d: %w", pid, err)
	}
	return parseVmRSS(data)
}

// maxKiB bounds a VmRSS in KiB that parseVmRSS accepts (8 EiB in bytes
// would overflow).
const maxKiB = 1 << 50

// parseVmRSS finds "VmRSS:  123 kB" in the text of /proc/PID/status.
func parseVmRSS(status []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "VmRSS:" && string(f[2]) == "kB" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("rss: VmRSS %q: %w", f[1], err)
			}
			if kb < 0 || kb > maxKiB {
				return 0, fmt.Errorf("rss: VmRSS %d kB out of range", kb)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("rss: no VmRSS line in /proc status")
}
