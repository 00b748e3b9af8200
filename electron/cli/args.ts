/**
 * Command-line flags: `--name value`, `--name=value`, boolean `--flag`, and lists
 * (`--data a.jsonl b.jsonl` takes values up to the next flag). Unknown flags are errors.
 */
import type { TrainConfig } from '../common/engine-api.ts';
import { HoneError } from '../common/errors.ts';
import { OPTION_KINDS } from '../common/settings-schema.ts';
import { camel, coerce, isOption } from './config.ts';

export interface ParsedArgs {
  options: Partial<TrainConfig>;
  /** CLI-only flags: json, demo, resume, config, help. */
  cli: { json: boolean; demo: boolean; help: boolean; resume: string | true | null; config?: string };
}

export function parseArgs(argv: string[]): ParsedArgs {
  const options: Record<string, unknown> = {};
  const cli: ParsedArgs['cli'] = { json: false, demo: false, help: false, resume: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { cli.help = true; continue; }
    if (!a.startsWith('--')) throw new HoneError('bad_config', `unexpected argument '${a}' (options start with --)`);
    let name = a.slice(2), inline: string | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) { inline = name.slice(eq + 1); name = name.slice(0, eq); }
    const next = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new HoneError('bad_config', `option '--${name}' needs a value`);
      return argv[++i];
    };
    if (name === 'json' || name === 'demo') { cli[name] = true; continue; }
    if (name === 'config') { cli.config = next(); continue; }
    if (name === 'resume') {
      cli.resume = inline ?? (i + 1 < argv.length && !argv[i + 1].startsWith('--') ? argv[++i] : true);
      continue;
    }
    const key = camel(name);
    if (!isOption(key)) throw new HoneError('bad_config', `unknown option '--${name}'`);
    if (OPTION_KINDS[key] === 'paths') {
      const vals: string[] = inline !== undefined ? [inline] : [];
      while (inline === undefined && i + 1 < argv.length && !argv[i + 1].startsWith('--')) vals.push(argv[++i]);
      if (vals.length === 0) throw new HoneError('bad_config', `option '--${name}' needs at least one path`);
      options[key] = [...((options[key] as string[]) ?? []), ...vals];
    } else if (OPTION_KINDS[key] === 'boolean') {
      options[key] = inline === undefined ? true : coerce(key, inline, `--${name}`);
    } else {
      options[key] = coerce(key, next(), `--${name}`);
    }
  }
  return { options: options as Partial<TrainConfig>, cli };
}
