// Thread-safety annotations: which mutex guards a member, which a function
// needs held. Clang's -Wthread-safety checks them against annotated
// capability types; other compilers ignore them. Either way they say in the
// declaration, where a reader looks first, what a comment would say in
// prose: "guarded by mu_".
//
//   std::mutex mu_;
//   std::queue<Task> tasks_ TZ_GUARDED_BY(mu_);
//   void PopLocked() TZ_REQUIRES(mu_);
#pragma once

#if defined(__clang__)
#define TZ_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define TZ_THREAD_ANNOTATION(x)
#endif

// The member is read and written only with `mu` held.
#define TZ_GUARDED_BY(mu) TZ_THREAD_ANNOTATION(guarded_by(mu))
// What the pointer points to is read and written only with `mu` held.
#define TZ_PT_GUARDED_BY(mu) TZ_THREAD_ANNOTATION(pt_guarded_by(mu))
// The function is called with `mu` held.
#define TZ_REQUIRES(...) TZ_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// The function is called without `mu` held (it takes it).
#define TZ_EXCLUDES(...) TZ_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
