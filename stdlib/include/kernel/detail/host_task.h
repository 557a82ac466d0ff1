// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Work for the host to do later (after a stream's work so far, or after a launch): any callable
// taking nothing, moved in. std::function would do, but <functional> costs every user's compile
// a tenth of a second (it brings <unordered_map> and the searchers), and these are never copied.
#pragma once

#include <concepts>
#include <memory>
#include <type_traits>
#include <utility>

namespace kernel::detail {

class host_task {
public:
  host_task() noexcept = default;

  template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, host_task> && std::invocable<std::decay_t<F> &>)
  host_task(F &&f) : work_(std::make_unique<holder<std::decay_t<F>>>(std::forward<F>(f))) {}

  void operator()() const { work_->run(); }
  explicit operator bool() const noexcept { return work_ != nullptr; }

private:
  struct work {
    virtual ~work() = default;
    virtual void run() = 0;
  };
  template <class F> struct holder final : work {
    explicit holder(F &&f) : f(std::move(f)) {}
    explicit holder(const F &f) : f(f) {}
    void run() override { f(); }
    F f;
  };
  std::unique_ptr<work> work_;
};

} // namespace kernel::detail
