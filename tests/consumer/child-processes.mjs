// The consumer suite's child processes (builds, dev servers, `next start`):
// each in its own process group with its output in a log file under the
// suite's work directory, stopped together when the suite ends.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences are what it removes
const stripAnsi = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');

/** Runs the jobs (functions returning promises) at most `n` at a time: the machine has two cores. */
export function limit(n) {
  let running = 0;
  const waiting = [];
  const next = () => {
    if (running >= n || waiting.length === 0) return;
    running++;
    const { job, resolve } = waiting.shift();
    job()
      .then(resolve)
      .finally(() => {
        running--;
        next();
      });
  };
  return (job) =>
    new Promise((resolve) => {
      waiting.push({ job, resolve });
      next();
    });
}

/**
 * The suite's process helpers, with `env` for every child and `workDir()`
 * the directory their logs go to.
 */
export function childProcesses(env, workDir) {
  const processes = []; // builds and servers started, stopped by stopAll
  let stopping = false; // set by stopAll: builds still queued do not start

  function run(command, args, options = {}) {
    const r = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, env, ...options });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', output: `${r.stdout}${r.stderr}` };
  }

  /** Starts a child process in its own process group, its output going to `<work>/<name>.log`. */
  function startProcess(name, command, args, cwd) {
    const log = join(workDir(), `${name}.log`);
    const fd = openSync(log, 'w');
    // A file, not a pipe: Jest's event loop is blocked while the synchronous
    // tests run, and a full pipe would stall the process.
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.readLog = () => stripAnsi(readFileSync(log, 'utf8')).trim();
    child.exited = new Promise((resolve) => {
      child.on('error', (err) => resolve({ code: null, error: err }));
      child.on('exit', (code, signal) => resolve({ code, signal }));
    });
    processes.push(child);
    return child;
  }

  /** Stops a child process started by startProcess (if still running), and the processes it started. */
  async function stopProcess(child) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM'); // its process group: Next.js and Parcel start workers
      } catch {
        // exited meanwhile
      }
    }
    await child.exited;
  }

  /** Runs a build to completion in `cwd`: resolves to its exit status, its output and how long it took. */
  async function runBuild(name, command, args, { cwd, timeout = 300_000 }) {
    if (stopping) return { status: null, output: 'not run: the tests had ended', seconds: 0 };
    const started = Date.now();
    const child = startProcess(name, command, args, cwd);
    const timer = setTimeout(() => stopProcess(child), timeout);
    const { code, error } = await child.exited;
    clearTimeout(timer);
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    const output = error ? String(error) : child.readLog();
    return { status: code, output: code === null ? `${output}\n[stopped after ${timeout / 1000} s]` : output, seconds };
  }

  /** Starts a server as a child process and waits until `path` answers 200. */
  async function startServerProcess(name, command, args, cwd, port, path = '/') {
    const child = startProcess(name, command, args, cwd);
    const url = `http://127.0.0.1:${port}`;
    let exit = null;
    child.exited.then((e) => {
      exit = e;
    });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && exit === null) {
      try {
        if ((await fetch(url + path)).ok) return url;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(
      `${name} did not serve ${url}${path} (${exit ? `exited: ${exit.code}` : 'timed out'}):\n${child.readLog()}`,
    );
  }

  /** Stops every process still running; builds not yet started never start. */
  async function stopAll() {
    stopping = true;
    await Promise.all(processes.map(stopProcess));
  }

  return { run, runBuild, startServerProcess, stopAll };
}
