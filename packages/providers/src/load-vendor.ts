import { ProviderError } from './errors.js';

/**
 * Runs a vendor package's dynamic import; a package that is not installed becomes a `missing-package` error
 * that says what to install, instead of a module-resolution stack trace.
 */
export async function importVendorPackage<T>(packageName: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    const message = cause instanceof Error ? cause.message : '';
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(packageName)) {
      throw new ProviderError(
        'missing-package',
        `${packageName} is not installed: install ${packageName} (npm install ${packageName}) to use this vendor`,
        { cause, packageName },
      );
    }
    throw cause;
  }
}
