import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    /// `X-Frame-Options`, for browsers older than `frame-ancestors`.
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    /// `Referrer-Policy`.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}

/// The headers of the pages the server serves (the admin console, the media demo) and of
/// their scripts: a Content-Security-Policy that runs only the server's own scripts and
/// connects only to the server itself, no framing by other sites (clickjacking), no MIME
/// sniffing, no Referer (a page's URL may carry a token), and no caching.
enum PageHeaders {
    /// The policy: scripts, connections (fetch, WebSocket), images and media from this
    /// origin only; styles from this origin and the pages' own inline ones.
    static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "connect-src 'self'",
        "img-src 'self' data: blob:", "media-src 'self' blob:", "object-src 'none'", "base-uri 'none'",
        "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// An HTML page's headers.
    static let html: HTTPFields = [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
        .contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff", .xFrameOptions: "DENY",
        .referrerPolicy: "no-referrer",
    ]

    /// A page's script's headers.
    static let script: HTTPFields = [
        .contentType: "text/javascript; charset=utf-8", .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
        .referrerPolicy: "no-referrer",
    ]
}
