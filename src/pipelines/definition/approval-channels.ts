// Where an await_approval stage announces itself: `dashboard` is the in-app notification (always
// recorded), `email` and `chat_a` go through the account's notification channels.
export const CHANNELS_FOR_APPROVAL = ['dashboard', 'email', 'chat_a'] as const;
export type ApprovalChannel = (typeof CHANNELS_FOR_APPROVAL)[number];
