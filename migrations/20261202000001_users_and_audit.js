// @ts-check
/**
 * Teams (docs/teams.md): users who sign in to the dashboard, their permissions per channel and
 * over the installation, presets of permissions, sessions, password resets, two-factor recovery
 * codes, and the audit log of every write by a user or a token.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE TABLE users (
      id bigserial PRIMARY KEY,
      email text NOT NULL,
      first_name text,
      last_name text,
      -- argon2id PHC string; null until the user sets one (reset link) or for OIDC-only users.
      password_hash text,
      active boolean NOT NULL DEFAULT true,
      sudo boolean NOT NULL DEFAULT false,
      -- Lockout (docs/teams.md): set when too many sign-ins fail; cleared by activate.
      locked_until timestamptz,
      -- TOTP secret sealed by the SecretBox; enabled once the user confirmed one code.
      totp_secret text,
      two_factor_enabled boolean NOT NULL DEFAULT false,
      -- The last TOTP time step accepted: a code is never accepted twice.
      totp_last_step bigint,
      system_permissions jsonb NOT NULL DEFAULT '{}'::jsonb,
      last_login_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_unique ON users (lower(email));

    CREATE TABLE permission_presets (
      id bigserial PRIMARY KEY,
      name text NOT NULL,
      permissions jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX permission_presets_name_unique ON permission_presets (lower(name));

    CREATE TABLE user_channel_permissions (
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      channel_id bigint NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      -- Every channel flag name -> boolean (packages/domain/src/user-permissions.ts).
      permissions jsonb NOT NULL,
      -- The preset last applied; its name is the answered role while the flags still match it.
      preset_id bigint REFERENCES permission_presets(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, channel_id)
    );
    CREATE INDEX user_channel_permissions_channel ON user_channel_permissions (channel_id);

    CREATE TABLE user_sessions (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      -- SHA-256 of the cookie's random value, and of the CSRF token bound to the session.
      token_hash bytea NOT NULL,
      csrf_hash bytea NOT NULL,
      -- false until the second factor is given (for users with two-factor on).
      two_factor_passed boolean NOT NULL DEFAULT false,
      ip text,
      user_agent text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );
    CREATE UNIQUE INDEX user_sessions_token_hash ON user_sessions (token_hash);
    CREATE INDEX user_sessions_user ON user_sessions (user_id);

    CREATE TABLE sign_in_failures (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      ip text,
      failed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sign_in_failures_user_time ON sign_in_failures (user_id, failed_at);

    CREATE TABLE password_resets (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash bytea NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX password_resets_token_hash ON password_resets (token_hash);

    CREATE TABLE user_recovery_codes (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      code_hash bytea NOT NULL,
      used_at timestamptz
    );
    CREATE INDEX user_recovery_codes_user ON user_recovery_codes (user_id);

    CREATE TABLE audit_log (
      id bigserial PRIMARY KEY,
      occurred_at timestamptz NOT NULL DEFAULT now(),
      -- Who: a user (signed in to the dashboard), a token, or the admin CLI.
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'token', 'cli')),
      user_id bigint REFERENCES users(id) ON DELETE SET NULL,
      token_id bigint REFERENCES api_tokens(id) ON DELETE SET NULL,
      -- Kept as written so the entry still says who after the user or token is gone.
      actor_label text,
      channel_id bigint,
      method text NOT NULL,
      path text NOT NULL,
      status integer,
      ip text,
      action text NOT NULL,
      resource_type text,
      resource_id text
    );
    CREATE INDEX audit_log_occurred ON audit_log (occurred_at);
    CREATE INDEX audit_log_channel ON audit_log (channel_id, id);
  `);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`DROP TABLE audit_log, user_recovery_codes, password_resets, sign_in_failures, user_sessions,
    user_channel_permissions, permission_presets, users`);
};
