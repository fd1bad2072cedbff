// Shapes shared by several pages. A page's own shapes live beside it (pages/<area>/types.ts).
export interface Account {
  id: string;
  email: string;
  name: string | null;
  plan: 'free' | 'pro' | 'team' | 'enterprise';
  created_at: string;
}

/** The list envelope most collection endpoints answer with. */
export interface Page<T> {
  data: T[];
  next_cursor?: string | null;
  has_more?: boolean;
}
