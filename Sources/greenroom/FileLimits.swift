#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// Raises the open-files limit to its hard maximum: every client holds a socket, and the
/// usual soft limit (1,024) would cap the server at about a thousand clients.
enum FileLimits {
    static func raise(logger: Logger) {
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else {
            logger.warning("cannot read the open-files limit; clients may be capped near 1,000")
            return
        }
        let before = limit.rlim_cur
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            if setrlimit(resource, &limit) != 0 {
                logger.warning("cannot raise the open-files limit from \(before); clients may be capped near it")
                return
            }
        }
        logger.info("open-files limit: \(limit.rlim_cur) (was \(before))")
    }
}
