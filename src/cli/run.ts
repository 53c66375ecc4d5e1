import { diagnoseCommand } from './diagnose.js';
import { TOP_HELP } from './help.js';
import { inspectCommand } from './inspect/command.js';
import { ledgerCommand } from './ledger.js';
import { redacting, writeJson, type Io } from './io.js';
import { probeCommand } from './probe.js';
import { replayCommand } from './replay.js';
import { rotationCommand } from './rotation.js';
import { sendCommand } from './send.js';
import { signCommand } from './sign.js';
import { EXIT, UsageError } from './usage-error.js';
import { packageVersion } from './version.js';

const COMMANDS = ['send', 'sign', 'probe', 'diagnose', 'inspect', 'replay', 'rotation', 'ledger'];
const VERSION = ['--version', '-v', 'version'];

/**
 * Runs one command line (without `node` and the script) and resolves to the exit code.
 *
 * @example
 * ```ts
 * const code = await run(['send', '--url', url, '--event', 'test'], { stdout: console.log, stderr: console.error, env: process.env });
 * ```
 */
export async function run(argv: string[], io: Io): Promise<number> {
  // `--json --version` reads as well as `--version --json`.
  const [command, ...rest]: (string | undefined)[] =
    argv[0] === '--json' && VERSION.includes(argv[1]!) ? [argv[1], '--json'] : argv;
  const args = rest as string[];
  try {
    if (command === 'send') return await sendCommand(args, io);
    if (command === 'sign') return signCommand(args, io);
    if (command === 'probe') return await probeCommand(args, io);
    if (command === 'diagnose') return await diagnoseCommand(args, io);
    if (command === 'inspect') return await inspectCommand(args, io);
    if (command === 'replay') return await replayCommand(args, io);
    if (command === 'rotation') return await rotationCommand(args, io);
    if (command === 'ledger') return await ledgerCommand(args, io);
    if (VERSION.includes(command!)) {
      if (args.includes('--json')) writeJson(io, { version: packageVersion() });
      else io.stdout(`${packageVersion()}\n`);
      return EXIT.delivered;
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout(TOP_HELP);
      return EXIT.delivered;
    }
    if (command === undefined) {
      io.stderr(TOP_HELP);
      return EXIT.usage;
    }
    throw new UsageError(`unknown command "${command}": use ${COMMANDS.join(', ')}, or --version.`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const help = COMMANDS.includes(command!) ? `webhook-cms-receiver ${command} --help` : 'webhook-cms-receiver --help';
    redacting(io, tokenIn(argv, io.env)).stderr(`webhook-cms-receiver: ${error.message}\nRun \`${help}\` for usage.\n`);
    return EXIT.usage;
  }
}

/** The token the command line points at (--token-env NAME, else WEBHOOK_TOKEN), to mask it in any message. */
export function tokenIn(argv: string[], env: Record<string, string | undefined>): string | undefined {
  const at = argv.indexOf('--token-env');
  const inline = argv.find((arg) => arg.startsWith('--token-env='));
  const name = inline ? inline.slice('--token-env='.length) : at >= 0 ? argv[at + 1] : undefined;
  return env[name ?? 'WEBHOOK_TOKEN'];
}
