import { TOP_HELP } from './help.js';
import { redacting, type Io } from './io.js';
import { sendCommand } from './send.js';
import { signCommand } from './sign.js';
import { EXIT, UsageError } from './usage-error.js';

/**
 * Runs one command line (without `node` and the script) and resolves to the exit code.
 *
 * @example
 * ```ts
 * const code = await run(['send', '--url', url, '--event', 'test'], { stdout: console.log, stderr: console.error, env: process.env });
 * ```
 */
export async function run(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'send') return await sendCommand(rest, io);
    if (command === 'sign') return signCommand(rest, io);
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout(TOP_HELP);
      return EXIT.delivered;
    }
    if (command === undefined) {
      io.stderr(TOP_HELP);
      return EXIT.usage;
    }
    throw new UsageError(`unknown command "${command}": use send or sign.`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const help =
      command === 'send' || command === 'sign'
        ? `webhook-cms-receiver ${command} --help`
        : 'webhook-cms-receiver --help';
    redacting(io, io.env.WEBHOOK_TOKEN).stderr(`webhook-cms-receiver: ${error.message}\nRun \`${help}\` for usage.\n`);
    return EXIT.usage;
  }
}
