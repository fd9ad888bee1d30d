import { ProfileSetSchema, RoleSchema } from '@statehouse/contracts';
import { openStore, SYSTEM_PRINCIPAL, silentLogger } from '@statehouse/state';
import { loadCliConfig, parseCliArgs } from './args.js';

/**
 * `npm run token -- create --role admin --profiles '*' --name ci`: creates an API token against
 * the configured database and prints it as the last line of the output.
 */
const usage = `usage: npm run token -- create --name NAME --role admin|member --profiles '*'|p1,p2`;

const { positionals, values } = parseCliArgs(
  {
    allowPositionals: true,
    options: { name: { type: 'string' }, role: { type: 'string', default: 'member' }, profiles: { type: 'string' } },
  },
  usage,
  'token',
);

if (positionals[0] !== 'create' || !values.name || !values.profiles) {
  console.error(usage);
  process.exit(2);
}
const role = RoleSchema.safeParse(values.role);
const profiles = ProfileSetSchema.safeParse(
  values.profiles === '*' ? '*' : values.profiles.split(',').map((profile) => profile.trim()),
);
if (!role.success || !profiles.success) {
  console.error(`invalid --role or --profiles\n${usage}`);
  process.exit(2);
}

const config = loadCliConfig('token');
const store = await openStore({
  url: config.databaseUrl,
  logger: silentLogger,
  preparedStatements: config.pgPreparedStatements,
});
try {
  const created = await store.auth.createToken(
    { principal: SYSTEM_PRINCIPAL, channel: 'system' },
    { name: values.name, role: role.data, profiles: profiles.data },
  );
  console.error(`created ${role.data} token "${values.name}" (id ${created.id}) for profiles ${values.profiles}`);
  console.log(created.token);
} finally {
  await store.close();
}
