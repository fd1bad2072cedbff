// Path segments the SDK puts into URLs: ids and names are encoded so a `/` or `?` in one cannot change the route.
export const segment = (value: string | number): string => encodeURIComponent(String(value));
