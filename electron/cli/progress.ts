/**
 * Terminal output of a training run: a one-line progress bar (loss, tok/s, ETA) redrawn in
 * place on a TTY, plain lines otherwise; or one JSON event per line with --json.
 */
import type { EngineEvent } from '../common/engine-api.ts';

export function formatDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?';
  const m = Math.floor(s / 60), sec = Math.round(s % 60);
  return m >= 60 ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m` : `${m}:${String(sec).padStart(2, '0')}`;
}

export function progressLine(e: Extract<EngineEvent, { type: 'step' }>, width = 24): string {
  const frac = e.nSteps > 0 ? e.step / e.nSteps : 0;
  const filled = Math.round(frac * width);
  const eta = e.step > 0 ? (e.elapsedS / e.step) * (e.nSteps - e.step) : NaN;
  return `step ${e.step}/${e.nSteps} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] loss ${e.loss.toFixed(4)}  ${Math.round(e.tokensPerS)} tok/s (rows ${Math.round(e.rowFill * 100)}% full)  ETA ${formatDuration(eta)}`;
}

export class Reporter {
  private drawing = false;
  constructor(
    private json: boolean,
    private out: NodeJS.WriteStream = process.stdout,
    private err: NodeJS.WriteStream = process.stderr,
  ) {}

  event(e: EngineEvent) {
    if (this.json) {
      this.out.write(JSON.stringify(e) + '\n');
      return;
    }
    if (e.type === 'step') {
      if (this.err.isTTY) {
        this.err.write(`\r${progressLine(e)}\x1b[K`);
        this.drawing = true;
      } else if (e.step === e.nSteps || e.step % Math.max(1, Math.ceil(e.nSteps / 20)) === 0 || e.step === 1) {
        this.err.write(progressLine(e) + '\n');
      }
      return;
    }
    this.endLine();
    if (e.type === 'phase') this.err.write(`${e.message}\n`);
    else if (e.type === 'eval') this.err.write(`eval at step ${e.step}: loss ${e.evalLoss.toFixed(4)} over ${e.lossTokens} tokens\n`);
    else if (e.type === 'checkpoint') this.err.write(`checkpoint: ${e.path}\n`);
    else if (e.type === 'checkpoint-failed') {
      this.err.write(`warning: checkpoint at step ${e.step} not written: ${e.message}; ` +
        `${e.held ? 'the run is held in memory' : 'training goes on and the next checkpoint tries again'} (last good: ${e.lastGood ?? 'none'})\n`);
    }
    else if (e.type === 'tokens') {
      const s = e.stats;
      this.err.write(`${s.examples} examples -> ${s.sequences} sequences, ${s.tokens} tokens (${s.lossTokens} carry loss); ` +
        `${s.overLength} longer than ctx ${s.ctx} (${s.truncated} truncated ${s.policy}, ${s.dropped} dropped), ${s.failed.length} failed to render\n`);
    } else if (e.type === 'host-exited') this.err.write(`the engine host stopped (${e.reason}); last checkpoint: ${e.lastCheckpoint ?? 'none'}\n`);
  }

  /** Writes a message on its own line (after a progress bar, if one is drawn). */
  line(msg: string) {
    this.endLine();
    this.err.write(msg + '\n');
  }

  endLine() {
    if (this.drawing) this.err.write('\n');
    this.drawing = false;
  }
}
