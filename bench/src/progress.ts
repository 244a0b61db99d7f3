import cliProgress from 'cli-progress';

/**
 * A progress bar on stderr (stdout is kept for the report). Without a
 * terminal, or with --quiet, it prints the stage once and its end, so logs of
 * unattended runs stay short.
 */
export class Progress {
  private bar: cliProgress.SingleBar | undefined;
  private started = 0;

  constructor(private readonly quiet: boolean) {}

  start(label: string, total: number, extra = ''): void {
    this.stop();
    this.started = Date.now();
    if (this.quiet) return;
    if (!process.stderr.isTTY) {
      process.stderr.write(`${label}: ${total} ${extra}\n`);
      return;
    }
    this.bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: `${label.padEnd(24)} [{bar}] {value}/{total} {percentage}% {eta_formatted} {note}`,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total, 0, { note: extra });
  }

  update(value: number, note?: string): void {
    this.bar?.update(value, note === undefined ? {} : { note });
  }

  increment(note?: string): void {
    this.bar?.increment(1, note === undefined ? {} : { note });
  }

  /** A line between bars: step summaries and warnings. */
  log(line: string): void {
    if (this.quiet) return;
    this.stop();
    process.stderr.write(`${line}\n`);
  }

  stop(): void {
    if (this.bar) {
      this.bar.stop();
      this.bar = undefined;
    } else if (this.started && !this.quiet && !process.stderr.isTTY) {
      process.stderr.write(`  done in ${((Date.now() - this.started) / 1000).toFixed(1)} s\n`);
    }
    this.started = 0;
  }
}
