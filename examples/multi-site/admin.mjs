// The sites' admin: node admin.mjs <command>. Uses the database the server uses (DATABASE_URL,
// else PGlite in DATA_DIR). Tokens are read, never printed: from the environment variable
// --token-env names (SITE_TOKEN by default), else pasted on standard input.
import { parseArgs } from 'node:util';
import { openDatabase } from './database.mjs';
import { addSite, finishRotation, listSites, rotateToken } from './sites.mjs';

const USAGE = `Usage:
  node admin.mjs add-site <id> --profile <profileId> --domain <domain>   add a site with its token
  node admin.mjs rotate <id>             the site's new token becomes current; the old one stays accepted
  node admin.mjs finish-rotation <id>    stop accepting the site's old token
  node admin.mjs list                    the sites (never their tokens)
The token is the one Profile Settings → CMS Integration showed for that site's profile. It is read
from $SITE_TOKEN (or the variable --token-env names), else pasted here; it is never printed.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    profile: { type: 'string' },
    domain: { type: 'string' },
    'token-env': { type: 'string', default: 'SITE_TOKEN' },
    help: { type: 'boolean', short: 'h' },
  },
});
const [command, id] = positionals;
const fail = (message) => {
  console.error(message);
  process.exit(1);
};
if (values.help || !command) fail(USAGE);
if (command !== 'list' && !id) fail(`${command} needs a site id.\n\n${USAGE}`);
if (command === 'add-site' && (!values.profile || !values.domain))
  fail(`add-site needs --profile <the profile's id> and --domain <the profile's domain>.\n\n${USAGE}`);

// Asked for first, so the prompt comes before the database takes its seconds to open.
const token = ['add-site', 'rotate'].includes(command) ? await readToken().catch((error) => fail(error.message)) : '';
const db = await openDatabase({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.DATA_DIR ?? './data',
  owner: 'admin',
}).catch((error) => fail(error.message));
try {
  if (command === 'add-site') {
    await addSite(db, { id, profileId: values.profile, domain: values.domain, token });
    console.log(`Added site ${id} (profile ${values.profile}, ${values.domain.toLowerCase()}).`);
  } else if (command === 'rotate') {
    await rotateToken(db, id, token);
    console.log(
      `Site ${id} now accepts its new token and still its old one. Once the service sends with the new ` +
        `one, run: node admin.mjs finish-rotation ${id}`,
    );
  } else if (command === 'finish-rotation') {
    await finishRotation(db, id);
    console.log(`Site ${id} accepts only its new token now.`);
  } else if (command === 'list') {
    for (const site of await listSites(db))
      console.log(`${site.id}  profile ${site.profile_id}  ${site.domain}${site.rotating ? '  (rotating)' : ''}`);
  } else {
    throw new Error(`Unknown command "${command}".\n\n${USAGE}`);
  }
} catch (error) {
  process.exitCode = 1;
  console.error(error.message);
} finally {
  await db.close();
}

async function readToken() {
  const name = values['token-env'];
  const token = (process.env[name] ?? (await readStdin())).trim();
  if (!token) throw new Error(`No token: set ${name}, or paste it when asked.`);
  if (/\s/.test(token)) throw new Error('The token has a space or a line break in it: paste it on one line.');
  return token;
}

function readStdin() {
  const input = process.stdin;
  if (!input.isTTY) {
    return new Promise((done) => {
      let text = '';
      input.setEncoding('utf8');
      input.on('data', (chunk) => (text += chunk));
      input.on('end', () => done(text));
    });
  }
  // Typed or pasted at a terminal: the prompt shows, the token does not (raw mode, no echo).
  process.stdout.write('Token from Profile Settings → CMS Integration (not shown): ');
  input.setRawMode(true);
  input.setEncoding('utf8');
  let text = '';
  return new Promise((done) => {
    const onData = (chunk) => {
      for (const char of chunk) {
        if (char === '\u0003') process.exit(130);
        if (char === '\r' || char === '\n') {
          input.off('data', onData);
          input.setRawMode(false);
          input.pause();
          process.stdout.write('\n');
          return done(text);
        }
        text = char === '\u007f' ? text.slice(0, -1) : text + char;
      }
    };
    input.on('data', onData);
  });
}
