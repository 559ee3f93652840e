#!/usr/bin/env python3
"""Battery cost of a live walk: a real gpsd on a pty fed the demo trace at 1 Hz in real time,
`walkscape walk --no-audio --no-input` following it. Reports CPU per fix and wake-ups (context
switches of all the walk's threads) while fixes flow and while idle.

Usage: walk-battery.py WALKSCAPE [SECONDS] [IDLE_SECONDS]
"""
import os, socket, subprocess, sys, tempfile, time, tty, signal, glob

walkscape = sys.argv[1]
seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
idle_seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 10
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
trace = os.path.join(root, "tours/demo/traces/walk.nmea")
tick = os.sysconf("SC_CLK_TCK")

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick  # utime + stime, all threads

class PerThread:
    """A per-thread counter of a process summed as deltas between samples taken each second, so
    threads that come and go are counted while they live. `read(tid)` gives the counter."""
    def __init__(self, pid, read):
        self.pid, self.read, self.last, self.total = pid, read, {}, 0
        self.sample()
    def sample(self):
        now = {}
        for task in glob.glob(f"/proc/{self.pid}/task/*"):
            tid = task.rsplit("/", 1)[1]
            try:
                n = self.read(task)
            except (FileNotFoundError, ProcessLookupError):
                continue
            now[tid] = n
            self.total += n - self.last.get(tid, 0 if self.last else n)
        self.last = now
        return self.total

def switches_of(task):
    return sum(int(line.split()[1]) for line in open(f"{task}/status")
               if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))

def cpu_ns_of(task):
    return int(open(f"{task}/schedstat").read().split()[0])  # nanoseconds on a CPU

epochs = []
for line in open(trace):
    line = line.strip()
    if not line.startswith("$"): continue
    if line[3:6] == "RMC" or not epochs: epochs.append([])
    epochs[-1].append(line)

master, slave = os.openpty()
tty.setraw(slave)
port = free_port()
home = tempfile.mkdtemp(prefix="walkscape-battery-")
gpsd = subprocess.Popen(["/usr/sbin/gpsd", "-N", "-n", "-b", "-s", "4800", "-f", "8N1", "-S", str(port),
                         "-F", os.path.join(home, "gpsd.sock"), os.ttyname(slave)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.1).close(); break
    except OSError:
        time.sleep(0.05)
walk = subprocess.Popen([walkscape, "walk", os.path.join(root, "tours/demo"), "--no-audio", "--no-input",
                         "--gpsd-port", str(port), "--home", home],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    time.sleep(2)  # connected and settled
    wake, ns = PerThread(walk.pid, switches_of), PerThread(walk.pid, cpu_ns_of)
    c0, s0, n0, t0 = cpu_seconds(walk.pid), wake.sample(), ns.sample(), time.monotonic()
    fixes = 0
    for i in range(seconds):
        os.write(master, ("\r\n".join(epochs[i % len(epochs)]) + "\r\n").encode())
        fixes += 1
        time.sleep(max(0, t0 + i + 1 - time.monotonic()))
        wake.sample(); ns.sample()
    c1, s1, n1, t1 = cpu_seconds(walk.pid), wake.sample(), ns.sample(), time.monotonic()
    for _ in range(idle_seconds):  # no fixes: gpsd stays, the walk should sleep
        time.sleep(1)
        wake.sample(); ns.sample()
    c2, s2, n2, t2 = cpu_seconds(walk.pid), wake.sample(), ns.sample(), time.monotonic()
    cpu = (n1 - n0) / 1e9  # scheduler nanoseconds; /proc/PID/stat ticks are only 10 ms
    print(f"walking: {fixes} fixes in {t1 - t0:.1f} s, CPU {cpu:.4f} s (ticks: {c1 - c0:.2f} s) "
          f"= {cpu / fixes * 1e6:.0f} us per fix ({cpu / (t1 - t0) * 100:.2f}% of one core); "
          f"10-minute walk ~ {cpu / (t1 - t0) * 600:.2f} CPU s")
    print(f"walking: {(s1 - s0) / (t1 - t0):.1f} wake-ups/s (context switches, all threads)")
    print(f"idle:    CPU {(n2 - n1) / 1e9:.4f} s over {t2 - t1:.1f} s, {(s2 - s1) / (t2 - t1):.1f} wake-ups/s")
finally:
    walk.send_signal(signal.SIGTERM)
    try: walk.wait(timeout=5)
    except subprocess.TimeoutExpired: walk.kill()
    gpsd.terminate(); gpsd.wait(timeout=5)
