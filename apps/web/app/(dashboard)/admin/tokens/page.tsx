import { CreateTokenForm } from '@/app/ui/admin/CreateTokenForm';
import { TokensTable } from '@/app/ui/admin/TokensTable';
import { ApiErrorAlert, Card, PageHeader } from '@/app/ui/common';
import { adminTitle } from '@/lib/admin';
import { listProfiles, listTokens } from '@/lib/api';
import { attempt } from '@/lib/attempt';

export const generateMetadata = adminTitle('API tokens');

/** API tokens for agent runtimes and gateways (administrators only, admin/layout.tsx). */
export default async function TokensPage() {
  const [tokens, profiles] = await Promise.all([attempt(listTokens), attempt(listProfiles)]);
  return (
    <>
      <PageHeader
        title="API tokens"
        description="Agent runtimes and gateways authenticate with these. A secret is shown once, when it is created."
      />
      <Card title="Create a token">
        <CreateTokenForm profiles={profiles.ok ? profiles.value.map((profile) => profile.name) : []} />
      </Card>
      <Card title="All tokens">
        {tokens.ok ? (
          <TokensTable tokens={tokens.value} />
        ) : (
          <ApiErrorAlert error={tokens.error} title="Tokens could not be loaded" />
        )}
      </Card>
    </>
  );
}
