import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A terminal program in a detached tmux session on a server of its own
 * (`-L`), driven as a person would: keys in (send-keys), the screen out
 * (capture-pane). Tests wait for what the screen shows, never for time.
 */
export class Tmux {
  private constructor(
    private readonly tmux: string,
    private readonly socket: string,
  ) {}

  /** Starts `command` (a shell line) in a session of `columns` x `rows`. */
  static async start(tmux: string, command: string, columns = 200, rows = 50): Promise<Tmux> {
    const session = new Tmux(tmux, `chat-test-${process.pid}-${Date.now()}`);
    await session.cmd('new-session', '-d', '-s', 'main', '-x', String(columns), '-y', String(rows), command);
    return session;
  }

  private async cmd(...args: string[]): Promise<string> {
    return (await run(this.tmux, ['-L', this.socket, ...args])).stdout;
  }

  /** Named keys (tmux names: Enter, Escape, Tab, End, C-d, ...), one after another. */
  async keys(...keys: string[]): Promise<void> {
    for (const key of keys) await this.cmd('send-keys', '-t', 'main', key);
  }

  /** Text typed as is. */
  async type(text: string): Promise<void> {
    await this.cmd('send-keys', '-t', 'main', '-l', text);
  }

  /** The cursor's row and the text of that row: where typed text goes. */
  async cursorLine(): Promise<string> {
    const row = Number((await this.cmd('display-message', '-p', '-t', 'main', '#{cursor_y}')).trim());
    return (await this.screen()).split('\n')[row] ?? '';
  }

  async screen(): Promise<string> {
    return this.cmd('capture-pane', '-p', '-t', 'main');
  }

  /**
   * The screen once `ready` holds for it (polled every 200 ms); fails after
   * `timeoutMs` with `what` and the last screen.
   */
  async waitFor(what: string, ready: (screen: string) => boolean, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (ready(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms; the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Stops the session and its tmux server. */
  async stop(): Promise<void> {
    await this.cmd('kill-server').catch(() => {});
  }
}
