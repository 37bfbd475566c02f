import GreenroomProtocol

extension CommandRouter {
    /// `user.get`, `user.list`, `user.me`, `user.update`, `user.partialUpdate`: any user may
    /// read users; a user may change only itself.
    mutating func registerUserOperations() {
        on(Operation.userGet) { (context, args: UserGetArgs) -> User in
            try await context.core.users.get(args.id)
        }
        on(Operation.userList) { (context, args: UserListArgs) -> Page<User> in
            try await context.core.users.list(args)
        }
        on(Operation.userMe) { (context, _: EmptyResult) -> User in
            try await context.core.users.get(context.identity.userId)
        }
        on(Operation.userUpdate) { (context, args: UserUpdateArgs) -> User in
            if let id = args.id, id != context.identity.userId {
                throw GreenroomError(.permissionDenied, "a user may update only itself")
            }
            return try await context.core.users.update(context.identity.userId, args)
        }
        on(Operation.userPartialUpdate) { (context, args: UserPartialUpdateArgs) -> User in
            try await context.core.users.partialUpdate(context.identity.userId, args)
        }
    }
}
