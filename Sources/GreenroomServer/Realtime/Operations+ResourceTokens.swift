import Foundation
import GreenroomProtocol

extension CommandRouter {
    /// `token.resource`: a short-lived token for one resource's files (see
    /// ``ResourceTokenOperation``). The token grants nothing the session lacks: it carries
    /// the session's user and grants, and each request with it is checked as the session's
    /// would be, under its scope only.
    mutating func registerResourceTokenOperations(_ tokens: TokenService) {
        on(ResourceTokenOperation.issue) { (caller, args: ResourceTokenArgs) -> ResourceToken in
            try TokenService.checkResourceScope(args.scope)
            let ttl = args.ttl ?? 3_600
            guard ttl.isFinite, (60...43_200).contains(ttl) else {
                throw GreenroomError(.invalidParameterValue, "ttl must be 60–43,200 seconds")
            }
            return try await tokens.issueResourceToken(for: caller.identity, scope: args.scope, ttl: ttl)
        }
    }
}
