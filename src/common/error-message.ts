/** The message of anything thrown. Duck-typed: errors from another realm (Jest's VM, undici) fail `instanceof Error`. */
export function errorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    const { message, code } = error as { message: string; code?: unknown };
    return message || (typeof code === 'string' ? code : String(error));
  }
  return String(error);
}
