//! `U128`, the amount type scripts compute with: every operation checked.

use super::*;

/// An amount: Rhai's `U128` (see the module docs). Every operation is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct U128(pub u128);

pub(super) fn arith(msg: String) -> Box<EvalAltResult> {
    EvalAltResult::ErrorArithmetic(msg, Position::NONE).into()
}

pub(super) fn int_amount(v: INT) -> RhaiResult<u128> {
    u128::try_from(v).map_err(|_| arith(format!("U128 arithmetic on a negative INT ({v})")))
}

/// `a` compared with an `INT` (a negative `INT` is below every `U128`).
pub(super) fn cmp_int(a: u128, b: INT) -> Ordering {
    match u128::try_from(b) {
        Ok(b) => a.cmp(&b),
        Err(_) => Ordering::Greater,
    }
}

pub(super) type CheckedOp = fn(u128, u128) -> Option<u128>;
pub(super) type CmpOp = fn(Ordering) -> bool;

pub(super) fn register_u128(e: &mut Engine) {
    e.register_type_with_name::<U128>("U128");
    e.register_fn("u128", |v: INT| int_amount(v).map(U128));
    e.register_fn("u128", |s: &str| -> RhaiResult<U128> {
        let digits = s.replace('_', "");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(arith(format!("`{s}` is not a decimal U128")));
        }
        digits
            .parse::<u128>()
            .map(U128)
            .map_err(|_| arith(format!("`{s}` does not fit a U128")))
    });
    e.register_fn("u128", |v: U128| v);
    e.register_fn("to_string", |v: &mut U128| v.0.to_string());
    e.register_fn("to_debug", |v: &mut U128| format!("u128({})", v.0));
    e.register_fn("to_int", |v: &mut U128| -> RhaiResult<INT> {
        INT::try_from(v.0).map_err(|_| arith(format!("U128 {} does not fit an INT", v.0)))
    });

    let ops: [(&str, CheckedOp); 5] = [
        ("+", u128::checked_add),
        ("-", u128::checked_sub),
        ("*", u128::checked_mul),
        ("/", u128::checked_div),
        ("%", u128::checked_rem),
    ];
    for (name, op) in ops {
        let apply = move |a: u128, b: u128| -> RhaiResult<U128> {
            op(a, b).map(U128).ok_or_else(|| {
                arith(format!(
                    "U128 {a} {name} {b}: overflow, underflow or division by zero"
                ))
            })
        };
        e.register_fn(name, move |a: U128, b: U128| apply(a.0, b.0));
        e.register_fn(name, move |a: U128, b: INT| apply(a.0, int_amount(b)?));
        e.register_fn(name, move |a: INT, b: U128| apply(int_amount(a)?, b.0));
    }

    let cmps: [(&str, CmpOp); 6] = [
        ("==", Ordering::is_eq),
        ("!=", Ordering::is_ne),
        ("<", Ordering::is_lt),
        ("<=", Ordering::is_le),
        (">", Ordering::is_gt),
        (">=", Ordering::is_ge),
    ];
    for (name, test) in cmps {
        e.register_fn(name, move |a: U128, b: U128| test(a.0.cmp(&b.0)));
        e.register_fn(name, move |a: U128, b: INT| test(cmp_int(a.0, b)));
        e.register_fn(name, move |a: INT, b: U128| test(cmp_int(b.0, a).reverse()));
    }
}
