import { run, tokenIn } from './run.js';
import { EXIT } from './usage-error.js';

// The bin entry: real process streams and environment; exitCode rather than exit() so output is flushed.
run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const secret = tokenIn(process.argv.slice(2), process.env);
    const message = String((error as Error)?.stack ?? error);
    process.stderr.write(
      `webhook-cms-receiver: unexpected error, please report it: ${secret ? message.split(secret).join('***') : message}\n`,
    );
    process.exitCode = EXIT.failed;
  },
);
