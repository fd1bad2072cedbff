// The signed-in account: who it is, its plan, since when.
import { Link } from 'react-router';
import { api } from '../../api/client';
import type { Account } from '../../api/types';
import { Id, TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { SettingsTabs } from './SettingsTabs';
import './settings.css';

export default function AccountPage() {
  const account = useApi((signal) => api.get<Account>('/v1/account', signal), []);
  return (
    <>
      <PageTitle title="Settings" />
      <SettingsTabs />
      <Loaded state={account}>
        {(me) => (
          <section className="panel" aria-labelledby="account-heading">
            <h2 id="account-heading">Account</h2>
            <dl className="facts">
              <dt>Email</dt>
              <dd>{me.email}</dd>
              <dt>Name</dt>
              <dd>{me.name ?? <span className="muted">not set</span>}</dd>
              <dt>Plan</dt>
              <dd>
                {me.plan} · <Link to="/billing">Billing</Link>
              </dd>
              <dt>Created</dt>
              <dd>
                <TimeAgo iso={me.created_at} />
              </dd>
              <dt>Account id</dt>
              <dd>
                <Id value={me.id} />
              </dd>
            </dl>
          </section>
        )}
      </Loaded>
    </>
  );
}
